def judge_time(parsed, target, start):
    raise NotImplementedError
