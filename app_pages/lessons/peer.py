"""The peer-instruction loop of a class's question (Crouch and Mazur 2001; Smith et al. 2009):
the students vote alone, the teacher closes the vote, shows the split, starts a discussion round
in which each student talks to a neighbour who answered differently, opens a second vote, and
reveals. Each move is optional: a teacher who only reveals runs the one-vote class as before.

The pairing is proposed by answer groups. The students are anonymous and the page cannot know who
sits beside whom, so it does what a real product can: a student who chose X is told to find a
neighbour who chose Y, the option most chosen after X (for the most chosen option, the next
most chosen); the projector lists the same pairs of groups. The 35-70 % rule (discuss when 35-70 %
chose the model's answer, else explain or move on) is a suggestion the teacher opens, under the
controls, after the first vote: it names the share that is right, so it is not on the projector
unless the teacher opens it.

Before the reveal nothing here holds the model's answer: the split is drawn without it
(``class_bars`` with ``best=None``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app_pages.lessons import class_shared, predict, step_view
from app_pages.lessons.answers import CLICK_KINDS, score_answer
from app_pages.lessons.schema import Question
from i18n import _, ngettext, pgettext
from live.records import ClassInfo, Closed, NoSuchClass, NotTeacher, Tally
from live.store import Store
from ui.text import escape_markdown
from viz.lessons import class_bars

if TYPE_CHECKING:
    from app_pages.lessons.teacher import Lead

RIGHT_LOW, RIGHT_HIGH = 0.35, 0.70  # the share right between which a discussion gains most


# --- what the page computes ----------------------------------------------------------------------


def most_chosen(counts: dict[int, int]) -> list[int]:
    """The options chosen at least once, the most chosen first (the lower index among ties)."""
    return sorted((c for c, n in counts.items() if n > 0), key=lambda c: (-counts[c], c))


def partner(counts: dict[int, int], mine: int | None) -> int | None:
    """The option whose group a student who chose ``mine`` is sent to: the most chosen option
    other than ``mine`` (None when nobody chose another, or ``mine`` is None)."""
    if mine is None:
        return None
    return next((c for c in most_chosen(counts) if c != mine), None)


def pairing(counts: dict[int, int]) -> list[tuple[int, int | None]]:
    """(option, the option its group talks to) for each option chosen, the most chosen first."""
    return [(c, partner(counts, c)) for c in most_chosen(counts)]


def changed_to(pairs: list[tuple[int, int]], best: int) -> tuple[int, int]:
    """Of the students who voted twice (``pairs`` of first and second choice), how many moved to
    the model's answer ``best`` from another one, and how many voted twice."""
    return sum(first != best and second == best for first, second in pairs), len(pairs)


def split_text(tally: Tally, labels: tuple[str, ...]) -> str:
    """The class's split in words (markdown, labels escaped): each option with its count and
    share, in the options' order."""
    total = max(tally.answered, 1)
    parts = [
        _("{option}: {n} ({share:.0%})").format(
            option=escape_markdown(label),
            n=tally.counts.get(i, 0),
            share=tally.counts.get(i, 0) / total,
        )
        for i, label in enumerate(labels)
    ]
    return pgettext("list separator", ", ").join(parts) if tally.answered else _("no answers yet")


def advice(tally: Tally, best: int) -> str:
    """The 35-70 % rule after the first vote, as a suggestion (markdown)."""
    if not tally.answered:
        return _("Nobody has answered yet.")
    right = tally.counts.get(best, 0) / tally.answered
    if right < RIGHT_LOW:
        return _(
            "{share:.0%} chose the model's answer, under 35 %: explain the idea again, then let "
            "the class vote again or move on."
        ).format(share=right)
    if right <= RIGHT_HIGH:
        return _(
            "{share:.0%} chose the model's answer, between 35 % and 70 %: a discussion round "
            "and a second vote are where peer instruction gains most."
        ).format(share=right)
    return _(
        "{share:.0%} chose the model's answer, over 70 %: a short explanation and the reveal "
        "will do."
    ).format(share=right)


def _label(posed: predict.Posed, choice: int | None) -> str:
    return "—" if choice is None else escape_markdown(posed.labels[choice])


def _vote_name(round_: int) -> str:
    return _("first vote") if round_ == 1 else _("second vote")


def split_chart(tally: Tally, posed: predict.Posed, key: str, **marks) -> None:
    """One vote's split as bars; ``best`` (in ``marks``) only after the reveal. Made once per
    split for the whole class: it depends on the counts and the marks (``mine``: one of the
    options), not on who looks."""
    n = tally.answered
    counts = tuple(tally.counts.get(i, 0) for i in range(len(posed.labels)))
    best = marks.pop("best", None)

    def build():
        title = (
            ngettext("First vote ({n} answer)", "First vote ({n} answers)", n)
            if tally.round == 1
            else ngettext("Second vote ({n} answer)", "Second vote ({n} answers)", n)
        ).format(n=n)
        return class_bars(
            posed.labels,
            list(counts),
            best,
            title=title,
            class_name=_("the class"),
            value_name=_("share of the answers")
            if "model_values" not in marks
            else _("share · weight"),
            **marks,
        )

    memo = ("split", posed.step, posed.labels, tally.round, counts, best, marks.get("mine"))
    memo += ("model_values" in marks,)
    step_view.chart_once(memo, build, f"{key}_split_{tally.round}")


# --- the teacher --------------------------------------------------------------------------------


def _act(lead: Lead, move: str) -> None:
    """A control's callback: the class's next stage (another tab may have revealed meanwhile)."""
    try:
        if move == "second":
            lead.store.second_vote(lead.code, lead.key)
        elif move == "reveal":
            lead.store.reveal(lead.code, lead.key)
        else:
            lead.store.set_stage(lead.code, lead.key, move)
    except (Closed, NoSuchClass, NotTeacher):
        pass


def teacher_controls(lead: Lead, key: str) -> None:
    """The loop's buttons for the class's state: close the vote, show the split, discuss, the
    second vote; and always the reveal."""
    info = lead.info
    moves = []
    if info.stage == "vote":
        moves.append(("closed", _("Close voting"), ":material/lock:"))
    if info.stage == "closed":
        moves.append(("split", _("Show the split"), ":material/bar_chart:"))
    if info.round == 1 and info.stage in ("closed", "split"):
        moves.append(("discuss", _("Start a discussion"), ":material/forum:"))
    if info.round == 1 and info.stage != "vote":
        moves.append(("second", _("Second vote"), ":material/how_to_vote:"))
    with st.container(horizontal=True):
        for move, label, icon in moves:
            st.button(label, key=f"{key}_class_{move}", icon=icon, on_click=_act, args=(lead, move))
        st.button(
            _("Reveal the answer"),
            type="primary",
            key=f"{key}_class_reveal",
            on_click=_act,
            args=(lead, "reveal"),
        )


def teacher_stage_caption(info: ClassInfo, tally: Tally) -> str:
    """What the class is doing now, for the teacher's column."""
    if info.stage == "vote" and info.round == 1:
        return _(
            "The class answers on their own devices; the answer stays hidden until you reveal it."
        )
    if info.stage == "vote":
        return _("Second vote: each student answers again after the discussion.")
    if info.stage == "discuss":
        return _("Discussion round: each device names a group to talk to.")
    return _("Voting is closed: {a} of {n} answered the {vote}.").format(
        a=tally.answered, n=tally.joined, vote=_vote_name(info.round)
    )


def discussion_text(tally: Tally, posed: predict.Posed) -> str:
    """The proposed pairs of answer groups, as the projector lists them (markdown)."""
    pairs = pairing(tally.counts)
    if not pairs:
        return _("Nobody answered: let neighbours compare their reasons, then vote.")
    if pairs[0][1] is None:
        return _("Everyone chose **{option}**: explain your reasons to a neighbour.").format(
            option=_label(posed, pairs[0][0])
        )
    lines = [_("**Talk to a neighbour who answered differently:**")]
    for option, other in pairs:
        lines.append(
            "- "
            + _("chose **{option}** ({n}): find someone who chose **{other}**").format(
                option=_label(posed, option), n=tally.counts[option], other=_label(posed, other)
            )
        )
    return "\n".join(lines)


def teacher_stage_ui(
    lead: Lead, question: Question, posed: predict.Posed, key: str, text_col
) -> None:
    """Before the reveal, in the view's column: the split once shown, the proposed pairs in the
    discussion; in the text column, the 35-70 % suggestion after the first vote."""
    info = lead.info
    tally = lead.store.tally(lead.code, info.step, info.round)
    first = tally if info.round == 1 else lead.store.tally(lead.code, info.step, 1)
    if info.stage in ("split", "discuss"):
        split_chart(first if info.stage == "discuss" else tally, posed, key)
        st.markdown(split_text(first if info.stage == "discuss" else tally, posed.labels))
    if info.stage == "discuss":
        st.markdown(discussion_text(first, posed))
    with text_col:
        st.caption(teacher_stage_caption(info, tally))
        teacher_controls(lead, key)
        if info.round == 1 and info.stage != "vote":
            with st.expander(_("Suggestion for the next move (names the share that is right)")):
                st.markdown(advice(first, posed.answer.best))


def teacher_reveal_ui(lead: Lead, question: Question, posed: predict.Posed, key: str) -> Tally:
    """At the reveal: after a second vote both splits side by side, the model's answer in bold,
    and the share that changed to it; else the one vote's spread. The last vote's tally."""
    info = lead.info
    last = lead.store.tally(lead.code, info.step, info.round)
    if info.round == 1:
        class_shared.spread_ui(last, question, posed, key)
        return last
    first = lead.store.tally(lead.code, info.step, 1)
    best = posed.answer.best
    left, right = st.columns(2, gap="small")
    with left:
        split_chart(first, posed, key, best=best)
        st.markdown(class_shared.spread_line(first, posed))
    with right:
        split_chart(last, posed, key, best=best, **_model_marks(question, posed))
        st.markdown(class_shared.spread_line(last, posed))
    st.markdown(changed_line(lead.store.both_votes(lead.code, info.step), posed))
    return last


def _model_marks(question: Question, posed: predict.Posed) -> dict:
    if question.kind in (*CLICK_KINDS, "pattern"):
        name = _("the model ({name})").format(name=posed.value_name)
        return {"model_values": posed.answer.values, "model_name": name}
    return {}


def changed_line(pairs: list[tuple[int, int]], posed: predict.Posed) -> str:
    """How many changed to the model's answer between the votes, in words (markdown)."""
    changed, both = changed_to(pairs, posed.answer.best)
    return ngettext(
        "{changed} of {n} student who voted twice ({share:.0%}) changed to the model's answer, **{best}**.",
        "{changed} of {n} students who voted twice ({share:.0%}) changed to the model's answer, **{best}**.",
        both,
    ).format(
        changed=changed, n=both, share=changed / max(both, 1), best=_label(posed, posed.answer.best)
    )


# --- a student ----------------------------------------------------------------------------------


def student_stage_ui(
    store: Store, info: ClassInfo, posed: predict.Posed, mine: int | None, key: str
) -> None:
    """A student's page while the vote is closed, the split shown or the class discussing."""
    first = store.tally(info.code, info.step, 1)
    tally = store.tally(info.code, info.step, info.round)
    if info.stage == "closed":
        st.info(
            _("Voting is closed. Your answer: **{mine}**.").format(mine=_label(posed, mine))
            if mine is not None
            else _("Voting is closed; you did not answer this vote."),
            icon=":material/lock:",
        )
        return
    shown = first if info.stage == "discuss" else tally
    if info.stage == "discuss":
        st.info(discussion_line(first.counts, posed, mine), icon=":material/forum:")
    split_chart(shown, posed, key, mine=mine)
    st.markdown(split_text(shown, posed.labels))


def discussion_line(counts: dict[int, int], posed: predict.Posed, mine: int | None) -> str:
    """Whom this student talks to in the discussion round (markdown)."""
    other = partner(counts, mine)
    if mine is None:
        return _("Talk with a neighbour: ask what they chose and why.")
    if other is None:
        return _("Everyone chose **{mine}**: explain your reasons to a neighbour.").format(
            mine=_label(posed, mine)
        )
    return _(
        "You chose **{mine}**. Find a neighbour who chose **{other}** and explain your reasons "
        "to each other; then the teacher opens a second vote."
    ).format(mine=_label(posed, mine), other=_label(posed, other))


def first_answer_line(first: int | None, posed: predict.Posed) -> str:
    """Above the second vote's options: the student's first answer (markdown)."""
    if first is None:
        return _("Second vote: you did not answer the first one. Pick an option now.")
    return _("Second vote. Your first answer: **{first}**. Keep it or change it.").format(
        first=_label(posed, first)
    )


def student_reveal_ui(
    store: Store,
    info: ClassInfo,
    student_id: str,
    question: Question,
    posed: predict.Posed,
    key: str,
    text_col,
    view_col,
) -> None:
    """At the reveal: the verdict on the student's last answer, their first and second answers and
    the model's in words, the explanation, and the class's split as text and as a chart."""
    first = store.my_answer(info.code, student_id, info.step, 1)
    second = store.my_answer(info.code, student_id, info.step, 2) if info.round == 2 else None
    last = second if info.round == 2 else first
    with text_col:
        if last is None:
            st.info(_("You did not answer this one."))
        else:
            s = score_answer(question.kind, posed.answer, last)
            (st.success if s.correct else st.info)(predict.verdict(question, posed, s))
        best = _label(posed, posed.answer.best)
        if info.round == 2:
            line = _(
                "Your first answer: **{first}** · your second answer: **{second}** · the "
                "model's answer: **{best}**"
            ).format(first=_label(posed, first), second=_label(posed, second), best=best)
        else:
            line = _("Your answer: **{mine}** · the model's answer: **{best}**").format(
                mine=_label(posed, first), best=best
            )
        st.markdown(line)
        st.markdown(_(question.explain))
    with view_col:
        tally = store.tally(info.code, info.step, info.round)
        class_shared.spread_ui(tally, question, posed, key, last)
        for round_ in range(1, info.round + 1):
            vote = tally if round_ == info.round else store.tally(info.code, info.step, round_)
            st.markdown(
                _("The class, {vote}: {split}").format(
                    vote=_vote_name(round_), split=split_text(vote, posed.labels)
                )
            )
        if question.kind not in class_shared.DRAWN_IN_SPREAD:
            class_shared.model_reveal(
                question, posed, last if last is not None else posed.answer.best, key
            )
