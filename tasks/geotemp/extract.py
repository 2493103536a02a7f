from types import SimpleNamespace
def extract_time_answer(text, utc_target=False):
    return SimpleNamespace(answer=None, reason="stub")
