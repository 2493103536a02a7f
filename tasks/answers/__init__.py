"""The answer-extraction layer every task family uses: find the answer a reply commits to, then extract it
with a typed extractor that says whether the reply answered, hedged, declined or could not be read.

Scoring policy (also in docs/scoring.md; statuses in :data:`tasks.records.AnswerStatus`):

0. **Prepare the reply** (:func:`prepare`, :mod:`tasks.answers.reply`): reasoning blocks taken apart
   (:func:`split_reasoning`), JSON answer fields, LaTeX and markdown unwrapped, thousands separators unified,
   committing labels and headings ("Final answer -", "## Answer", "**Answer:**") written as FINAL ANSWER lines,
   closing pleasantries dropped. Every family reads the prepared text.
1. **Find the committed answer** (:func:`find_answer`): the last ``FINAL ANSWER:`` line; in completion style
   (the prompt ends in a stub such as ``Answer: Option (``) the reply's first line; in a free reply the last
   line that commits ("the answer is ...", "Therefore ..."), else the last line when it is only the answer or
   states one; else the answer the reply puts in bold (:mod:`tasks.answers.emphasis`), a first sentence that is
   only the answer and is followed by a remark (``first_bare``) or a stating first line; else ``unlocated``.
   A line that only rejects what it names is no alternative, a heading no value. Never the first number of the
   reasoning.
2. **One answer earns credit; several are a hedge.** An answer that commits to more than one candidate — two
   options, every option echoed, a list, a range ("1212–2424 km"), "X or Y", an alternative in brackets
   ("X (or Y)") — is ``hedged`` and never credited; so are alternatives offered in words ("C, or possibly D",
   "C (maybe D)", "B/C", "B. Actually, C."), a list under the marker, an "or ..." line after it, a bound
   ("at least 1200 km") and FINAL ANSWER lines that disagree (:func:`extract`). "Not X" is no answer. The same value written twice (in km and miles, in DMS and
   decimal) is one answer. A later line offering another value of the answer's kind ("Second choice: ...",
   "Alternative answer: ...", a heading with another value under it, numbers in words) and an answer that disowns
   its value ("..., which I believe is wrong") are hedges too (:func:`later_alternative`).
3. **A given parameter is not the answer.** "With R = 6371 km, the distance is 2424 km" answers 2424 km:
   values after "R =", "with/using/given ...", tolerances ("± 5 km"), operands of a computation and values
   printed in the prompt (while another value remains) are left out.
4. **A literal echo of the prompt's placeholder is unparsed** (``FINAL ANSWER: N`` when the template said "N,
   where N is the option number"; ``<letter>``).
5. **A refusal is a refusal**: with nothing extracted, "I cannot ...", "I don't know", "unable to determine",
   "Unknown" make the status ``refused``; anything else without an answer is ``unparsed``.
6. **Bounded, linear-time parsing**: only the answer line (at most :data:`SEGMENT_CAP` characters), a block
   after the marker (:data:`BLOCK_CAP`) or the reply's last :data:`TAIL_CAP` characters are read; digit runs of
   :data:`LONG_NUMBER` digits or more are replaced before parsing, and no pattern rescans a digit run.

Building blocks: :func:`decide` (candidates → one answer, hedged or unparsed) is the primitive every extractor
ends in; :func:`extract` runs an extractor on a reply's committed answer with the echo and refusal rules.
"""

from tasks.answers.choices import (
    DIRECTION_NAMES,
    DIRECTIONS_8,
    direction,
    option,
    option_labels,
    option_texts,
    yes_no,
    yes_no_values,
)
from tasks.answers.coords import (
    Angle,
    Pair,
    PairAnswer,
    coordinate_pair,
    find_angles,
    pair_from_angles,
    pairs,
    single_angle,
)
from tasks.answers.decide import (
    ALTERNATIVE_CUE,
    DISOWNED,
    UNCOMMITTED,
    agree,
    decide,
    distinct,
    extract,
    later_alternative,
    next_line,
)
from tasks.answers.numbers import (
    DISTANCE_UNITS,
    KM_PER_MILE,
    NUM,
    NUMBER_RE,
    Number,
    Quantity,
    bare_number,
    is_formula,
    numbers,
    prompt_numbers,
    quantities,
    quantity,
    result_part,
    same_value,
    to_float,
)
from tasks.answers.reply import (
    number_words,
    prepare,
    split_reasoning,
    unify_numbers,
    unjson,
    unlatex,
    unmarkdown,
)
from tasks.answers.text import (
    BLOCK_CAP,
    FINAL_RE,
    LONG_NUMBER,
    SEGMENT_CAP,
    TAIL_CAP,
    Answer,
    answer_block,
    blank_phrase,
    clean,
    commit_block,
    contains_phrase,
    earlier_blocks,
    final_answer_end,
    final_answer_segment,
    final_answer_segments,
    find_answer,
    find_phrase,
    fold,
    has_commit_cue,
    is_non_answer,
    is_placeholder_echo,
    is_refusal,
    last_line,
    located,
    placeholders,
)

__all__ = [
    "ALTERNATIVE_CUE", "DISOWNED", "UNCOMMITTED", "later_alternative", "next_line", "number_words", "prepare", "split_reasoning", "unify_numbers",
    "unjson", "unlatex", "unmarkdown",
    "BLOCK_CAP", "DIRECTIONS_8", "DIRECTION_NAMES", "DISTANCE_UNITS", "FINAL_RE", "KM_PER_MILE", "LONG_NUMBER", "NUM",
    "NUMBER_RE", "SEGMENT_CAP", "TAIL_CAP", "Angle", "Answer", "Number", "Pair", "PairAnswer", "Quantity", "agree", "answer_block",
    "bare_number", "blank_phrase", "clean", "commit_block", "contains_phrase", "coordinate_pair", "earlier_blocks", "decide", "direction", "distinct",
    "extract", "final_answer_end", "final_answer_segment", "final_answer_segments", "find_angles", "find_answer", "find_phrase", "fold", "has_commit_cue", "is_formula",
    "is_non_answer", "is_placeholder_echo", "is_refusal", "last_line", "located", "numbers", "option", "option_labels", "option_texts",
    "pair_from_angles", "pairs", "placeholders", "prompt_numbers", "quantities", "quantity", "result_part",
    "same_value", "single_angle", "to_float", "yes_no", "yes_no_values",
]
