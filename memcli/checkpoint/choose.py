"""Which candidates one checkpoint names, within the per-turn and per-session caps.

Two families share the caps fairly: what *happened* (a fail-then-fix episode, an environment
failure seen in output, a check or command still failing when the turn ends, a refused tool
call, an interrupted command) and what was *said* (the user's corrections and conventions,
causes and decisions in the assistant's closing messages and mid-turn notes, environment
facts it stated, sub-agents' reports). Each family has a reserved share of the session cap
(a third each; the last third goes to whichever asks first) that the other never takes
(the user's own words and telling sentences have budgets of their own, outside it), and
half of each request (rounded up for what happened); the room a family leaves in a request
goes to the other. Prose is plentiful (a long session's notes alone can fill any cap), events are
rarer and more often the lesson: a check still failing at the end of the last turn is asked
about however much was said before it. Within what happened: by kind, then the strongest
evidence first; within what was said: the strongest evidence first (see
:func:`memcli.checkpoint.sayings.strength`: a correction in so many words before a question
that challenges a choice), then by kind, then in the order seen. The weakest of what was said
(a question, a fragment, naming nothing concrete) is asked only early in a session and a
few at a time, findings a few at a time and up to half the session's cap, so a later
turn's stronger lesson still finds room.
"""

from memcli.checkpoint import sayings
from memcli.checkpoint.entries import PRIORITY

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from collections.abc import Callable

# Kinds that come from events (commands, their outputs, tool calls), not from prose.
HAPPENED = frozenset(
    (
        "fix",
        "unresolved",
        "denied",
        "failed",
        "warning",
        "interrupted",
        "workflow",
        "unverified",
        "branch",
    )
)


def happened(candidate: dict[str, object]) -> bool:
    """Whether the candidate comes from what happened (an environment failure counts when it
    was seen in a command's output, not only said)."""
    kind = candidate.get("kind")
    if kind == "env":
        return candidate.get("env") != "stated" and not candidate.get("origin")
    return kind in HAPPENED


def choose(
    found: dict[str, object],
    skip: set[str],
    asked: list[object],
    per_turn: int,
    per_session: int,
    work: int = 0,
) -> list[dict[str, object]]:
    """The candidates to name now: fresh (not in ``skip``), with evidence, in the order asked;
    ``work``: how many observations this turn read (see :data:`WORK_PER_EXTRA`)."""
    told, users = _telling_asked(found, asked), _users_asked(found, asked)
    asked = _in_cap(found, asked)
    fresh = [
        c
        for c in found.values()
        if isinstance(c, dict) and c.get("id") not in skip and c.get("lines")
    ]
    strengths = {str(c.get("id")): sayings.strength(c) for c in fresh}
    fresh.sort(key=lambda c: (PRIORITY.index(str(c.get("kind"))), -strengths[str(c.get("id"))]))
    events = [c for c in fresh if happened(c)]
    # What was said: the user's own words first, then the strongest evidence whatever its
    # kind, so the caps keep the best; a sentence only salient.most_telling read comes after
    # all that a rule read.
    prose = sorted(
        (c for c in fresh if not happened(c)),
        key=lambda c: (_telling(c), not _by_user(c), -strengths[str(c.get("id"))]),
    )
    prose = _few_findings(prose, found, asked, per_session)
    extra = min(work // WORK_PER_EXTRA, per_turn)  # at most twice the usual request
    per_turn += extra
    telling = min(TELLING_PER_REQUEST + extra // 2, TELLING_PER_SESSION - len(told))
    prose = _at_most(prose, _telling, telling)
    prose = _few_weak(prose, strengths, asked, per_session)
    events_asked = _events_asked(found, asked)
    reserve = per_session // 3
    # the user's own words this request may name beyond the session's cap
    by_user = min(USER_PER_SESSION - len(users), sum(1 for c in prose if _by_user(c)))
    room = max(0, min(per_turn, per_session - len(asked) + by_user))
    # Each family may use the session's room but for what the other still has reserved.
    events_room = max(0, per_session - len(asked) - max(0, reserve - (len(asked) - events_asked)))
    prose_room_left = _prose_room(found, asked, per_session) + by_user
    events_first = min(len(events), events_room, (room + 1) // 2)
    prose_first = min(len(prose), prose_room_left, room - events_first)
    # The room one family leaves in this request goes to the other.
    events_first = min(len(events), events_room, room - prose_first)
    chosen = events[:events_first] + prose[:prose_first]
    chosen.sort(key=lambda c: fresh.index(c))
    return chosen


# Findings said without a cause's or a choice's words ("`X` is configured in `Y`") are
# plentiful in a long session's notes: a request names at most 4, a session at most half of
# its cap, so they never take the room of a later turn's stronger lesson. (2 a request, a
# quarter of the cap and only in its first half hid findings about the code a later turn
# said; 4 and a half showed one more lesson on the blind sessions and no fewer elsewhere.)
FINDINGS_PER_REQUEST = 4


def _few_findings(
    prose: list[dict[str, object]],
    found: dict[str, object],
    asked: list[object],
    per_session: int,
) -> list[dict[str, object]]:
    earlier = [found.get(a) for a in asked if isinstance(a, str)]
    findings_asked = sum(1 for c in earlier if isinstance(c, dict) and c.get("form") == "finding")
    allowed = min(FINDINGS_PER_REQUEST, per_session // 2 - findings_asked)
    return _at_most(prose, lambda c: c.get("form") == "finding", allowed)


# A message's most telling sentence no rule read (two a closing message, one a note, see
# :mod:`memcli.checkpoint.salient`): asked after all a rule read, at most 2 a request and 8 a
# session, outside the session's cap. Inside it, those asked in early turns took the room a
# later turn's notes needed (once the prose share is used, notes are not read): on the blind
# sessions that lost a lesson the budget of their own got back.
TELLING_PER_REQUEST = 2
TELLING_PER_SESSION = 8

# A long turn (a one-prompt session of SWE-agent's, an autonomous hour) has more to record
# than a short one and only one request to ask in: a request may name one more candidate
# for every 25 observations the turn read, up to twice the usual cap (and one more telling
# sentence for every two of those), within the session's cap as always. With the usual 8
# only, a one-turn session's last check still failing and its missing tools went unasked
# behind the causes said before them.
WORK_PER_EXTRA = 25


# What the user said in so many words, a correction, a norm or a cause ("no, use rgb
# values, not indices", "reason being that we injected the bash message ..."), is the lesson
# a later session must not miss, and a long session's own prose had filled the cap before a
# late one came: the first 8 a session are asked outside it, first of what was said.
USER_PER_SESSION = 8


def _by_user(candidate: dict[str, object]) -> bool:
    lines = candidate.get("lines")
    return (
        not candidate.get("form")  # not a question, a fragment, a telling sentence, pasted
        and isinstance(lines, list)
        and bool(lines)
        and str(lines[0]).startswith(("the user said", "the user asked again"))
    )


def _telling(candidate: dict[str, object]) -> bool:
    return candidate.get("form") == "telling"


def _users_asked(found: dict[str, object], asked: list[object]) -> set[object]:
    """The first :data:`USER_PER_SESSION` of the user's own words asked (the rest count in
    the session's cap)."""
    return _asked_where(found, asked, _by_user, USER_PER_SESSION)


def _telling_asked(found: dict[str, object], asked: list[object]) -> set[object]:
    return _asked_where(found, asked, _telling, len(asked))


def _asked_where(
    found: dict[str, object],
    asked: list[object],
    test: "Callable[[dict[str, object]], bool]",
    most: int,
) -> set[object]:
    """The first ``most`` candidates asked that pass ``test``."""
    kept: set[object] = set()
    for a in asked:
        candidate = found.get(a) if isinstance(a, str) else None
        if len(kept) < most and isinstance(candidate, dict) and test(candidate):
            kept.add(a)
    return kept


# The weakest of what was said (strength 0: a question that challenges a choice, a terse
# fragment, a sentence of pasted context, naming nothing concrete) is rarely the lesson (2 of
# 15 asked on the benchmark's tuned and fresh sessions matched one) while a long session's
# later commits and causes went unasked for want of room: a request names at most 2 of them,
# and only while the session has used less than a third of its cap. A one-turn session's
# only request still names them, beside its stronger candidates.
WEAK = 0
WEAK_PER_REQUEST = 2


def _few_weak(
    prose: list[dict[str, object]],
    strengths: dict[str, int],
    asked: list[object],
    per_session: int,
) -> list[dict[str, object]]:
    allowed = WEAK_PER_REQUEST if len(asked) < per_session // 3 else 0
    return _at_most(prose, lambda c: strengths[str(c.get("id"))] <= WEAK, allowed)


def _at_most(
    prose: list[dict[str, object]], limited: "Callable[[dict[str, object]], bool]", allowed: int
) -> list[dict[str, object]]:
    """``prose`` in order, keeping only the first ``allowed`` of the candidates ``limited``."""
    kept: list[dict[str, object]] = []
    for candidate in prose:
        if limited(candidate):
            if allowed <= 0:
                continue
            allowed -= 1
        kept.append(candidate)
    return kept


def prose_room(found: dict[str, object], asked: list[object], per_session: int) -> int:
    """How many more of what was said the session may still ask about."""
    return _prose_room(found, _in_cap(found, asked), per_session)


def _in_cap(found: dict[str, object], asked: list[object]) -> list[object]:
    """The candidates asked that count in the session's cap (not those of a budget of their
    own: telling sentences, the user's first own words)."""
    told, users = _telling_asked(found, asked), _users_asked(found, asked)
    return [a for a in asked if a not in told and a not in users]


def _prose_room(found: dict[str, object], capped: list[object], per_session: int) -> int:
    reserve = per_session // 3
    return max(0, per_session - len(capped) - max(0, reserve - _events_asked(found, capped)))


def _events_asked(found: dict[str, object], asked: list[object]) -> int:
    earlier = [found.get(a) for a in asked if isinstance(a, str)]
    return sum(1 for c in earlier if isinstance(c, dict) and happened(c))
