"""The single-turn demo families: counting, colours and positions, charts, text reading, clocks
and spot-the-difference. Each builder draws a scene and asks one question whose answer it
knows exactly."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from workbench.demo.drawing import draw_chart, draw_clock, draw_shapes, draw_sign, to_png
from workbench.demo.keys import AnswerKey, DemoImage, DemoItem, DemoTurn, near_miss, other_than
from workbench.demo.scenes import (
    CHANGE_KINDS,
    COLOURS,
    SIGN_STYLES,
    BarChart,
    Change,
    Clock,
    ShapeScene,
    Sign,
    possible_changes,
    sample_change,
    sample_chart,
    sample_clock,
    sample_grid_scene,
    sample_scattered_scene,
    sample_sign,
)
from workbench.demo.wording import (
    a_shape,
    cell_name,
    counted,
    describe_change,
    describe_grid,
    grid_position_text,
    inventory,
    inventory_text,
    join_words,
    with_article,
)


def scene_data(scene: Any) -> dict[str, Any]:
    """A scene as JSON-ready data, tagged with its type."""
    return {"type": type(scene).__name__, **dataclasses.asdict(scene)}


def image_of(name: str, picture: Any) -> DemoImage:
    return DemoImage(name, to_png(picture), picture.width, picture.height)


def one_picture_item(
    item_id: str,
    family: str,
    category: str,
    picture: Any,
    turns: tuple[DemoTurn, ...],
    caption: str,
    scene: Any,
) -> DemoItem:
    """An item about one drawn picture of ``scene``."""
    return DemoItem(
        external_id=item_id,
        family=family,
        category=category,
        images=(image_of(f"{item_id}.png", picture),),
        turns=turns,
        caption=caption,
        scene={"scene": scene_data(scene)},
    )


# --- counting ----------------------------------------------------------------------------------


def counting_item(rng: random.Random, item_id: str, number: int) -> DemoItem:
    scene = sample_scattered_scene(rng)
    target = rng.choice(scene.shapes)
    by_kind = number % 3 != 0  # every third item asks for a colour only
    noun = f"{target.colour} {target.kind}" if by_kind else f"{target.colour} shape"
    matches = [
        s
        for s in scene.shapes
        if s.colour == target.colour and (not by_kind or s.kind == target.kind)
    ]
    templates = (
        "How many {}s are there in the image?",
        "Count the {}s in this picture.",
        "How many {}s can you see?",
    )

    def state(n: int) -> str:
        if n == 0:
            return f"There are no {noun}s."
        return f"There is 1 {noun}." if n == 1 else f"There are {n} {noun}s."

    def explain(n: int) -> str:
        lines = [f"### Counting the {noun}s", "", "I went over the picture row by row."]
        lines += [f"It holds {counted(len(scene.shapes), 'shape')} in all:", ""]
        lines += [f"- {counted(k, f'{c} {kind}')}" for c, kind, k in inventory(scene)]
        return "\n".join([*lines, "", f"**Answer: {n}.** {state(n)}"])

    where = join_words([grid_position_text(s) for s in matches])
    caption = (
        f"A drawing of {counted(len(scene.shapes), 'flat shape')} scattered over a pale "
        f"background in a loose 4-by-5 arrangement: {inventory_text(scene)}. "
        f"The {noun}s the question asks about number {len(matches)}, at {where} "
        "(rows counted from the top, columns from the left)."
    )
    key = AnswerKey(
        truth=len(matches),
        state=state,
        terse=str,
        explain=explain,
        mistake=lambda r: near_miss(len(matches), r),
        miscount=lambda n: n + 1,
    )
    return DemoItem(
        external_id=item_id,
        family="counting",
        category="shape counting",
        images=(image_of(f"{item_id}.png", draw_shapes(scene)),),
        turns=(DemoTurn(templates[number % 3].format(noun), "counting", key),),
        caption=caption,
        scene={
            "scene": scene_data(scene),
            "asked": {"colour": target.colour, "kind": target.kind if by_kind else None},
        },
    )


# --- colours and positions ---------------------------------------------------------------------


def _grid_table(scene: ShapeScene) -> str:
    rows = ["| row | left | centre | right |", "|---|---|---|---|"]
    for row, name in enumerate(("top", "middle", "bottom")):
        cells = []
        for column in range(3):
            shape = scene.shape_at(row, column)
            cells.append(f"{shape.colour} {shape.kind}" if shape else "(empty)")
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _with_extra_shape(scene: ShapeScene) -> ShapeScene:
    """The scene as someone who saw one shape too many would describe it."""
    row, column = scene.empty_cells()[0]
    copy = dataclasses.replace(scene.shapes[0], row=row, column=column)
    return dataclasses.replace(scene, shapes=(*scene.shapes, copy))


def _misdescribed(scene: ShapeScene, rng: random.Random) -> ShapeScene:
    kinds = [k for k in ("recolour", "reshape", "remove") if possible_changes(scene, k)]
    return sample_change(rng, scene, rng.choice(kinds))[1]


def colours_item(rng: random.Random, item_id: str, number: int) -> DemoItem:
    scene = sample_grid_scene(rng)
    variant = ("describe", "what", "where")[number % 3]
    shape = rng.choice(scene.shapes)
    cell = cell_name(shape.row, shape.column)
    grid_caption = describe_grid(scene) + " Thin grey lines divide the picture into the cells."
    if variant == "what":

        def state_what(value: tuple[str, str]) -> str:
            return f"The {cell} cell holds {with_article(f'{value[0]} {value[1]}')}."

        wrong_whats = [(s.colour, s.kind) for s in scene.shapes]
        wrong_whats += [(c, shape.kind) for c in sorted(COLOURS)]
        key = AnswerKey(
            truth=(shape.colour, shape.kind),
            state=state_what,
            terse=lambda v: f"{v[0]} {v[1]}",
            explain=lambda v: f"### The {cell} cell\n\n{_grid_table(scene)}\n\n**{state_what(v)}**",
            mistake=lambda r: other_than((shape.colour, shape.kind), wrong_whats, r),
        )
        prompt = (
            f"The picture is divided into a 3-by-3 grid. What shape is in the {cell} cell, "
            "and what colour is it?"
        )
        turn = DemoTurn(prompt, "colour and shape", key)
        caption = f"{grid_caption} The question is about the {cell} cell: {a_shape(shape)}."
    elif variant == "where":

        def state_where(value: tuple[int, int]) -> str:
            return f"The {shape.colour} {shape.kind} is in the {cell_name(*value)} cell."

        cells = [(r, c) for r in range(3) for c in range(3)]
        key = AnswerKey(
            truth=(shape.row, shape.column),
            state=state_where,
            terse=lambda v: cell_name(*v),
            explain=lambda v: (
                f"### Finding the {shape.colour} {shape.kind}\n\n"
                f"{_grid_table(scene)}\n\n**{state_where(v)}**"
            ),
            mistake=lambda r: other_than((shape.row, shape.column), cells, r),
        )
        prompt = f"In which cell of the 3-by-3 grid is the {shape.colour} {shape.kind}?"
        turn = DemoTurn(prompt, "position", key)
        caption = (
            f"{grid_caption} The {shape.colour} {shape.kind} asked about is in the {cell} cell."
        )
    else:
        key = AnswerKey(
            truth=scene,
            state=describe_grid,
            terse=lambda s: (
                f"{len(s.shapes)} shapes: " + ", ".join(f"{x.colour} {x.kind}" for x in s.shapes)
            ),
            explain=lambda s: f"### What the image shows\n\n{describe_grid(s)}\n\n{_grid_table(s)}",
            mistake=lambda r: _misdescribed(scene, r),
            miscount=_with_extra_shape,
        )
        turn = DemoTurn("Describe the image.", "description", key)
        caption = grid_caption
    return one_picture_item(
        item_id, "colours", turn.category, draw_shapes(scene), (turn,), caption, scene
    )


# --- charts ------------------------------------------------------------------------------------


def chart_table(chart: BarChart) -> str:
    rows = [
        "| bar | value |",
        "|---|---:|",
        *(f"| {name} | {value} |" for name, value in chart.bars),
    ]
    return "\n".join(rows)


def _bar_key(chart: BarChart, bar: tuple[str, int], which: str) -> AnswerKey:
    def state(value: tuple[str, int]) -> str:
        return f"The {which} bar is {value[0]}, with a value of {value[1]}."

    label, value = bar
    wrong = [b for b in chart.bars if b != bar] + [(label, value + d) for d in (-2, -1, 1, 2)]
    return AnswerKey(
        truth=bar,
        state=state,
        terse=lambda v: f"{v[0]}, {v[1]}",
        explain=lambda v: f"### The {which} bar\n\n{chart_table(chart)}\n\n**{state(v)}**",
        mistake=lambda r: other_than(bar, wrong, r),
        miscount=lambda v: (v[0], v[1] + 1),
    )


def _number_key(chart: BarChart, truth: int, state_template: str, spread: int) -> AnswerKey:
    def state(value: int) -> str:
        return state_template.format(value)

    return AnswerKey(
        truth=truth,
        state=state,
        terse=str,
        explain=lambda v: f"### Reading the chart\n\n{chart_table(chart)}\n\n**{state(v)}**",
        mistake=lambda r: near_miss(truth, r, spread=spread),
        miscount=lambda v: v + 1,
    )


def chart_caption(chart: BarChart) -> str:
    tallest, shortest = chart.tallest(), chart.shortest()
    facts = join_words([f"{label} {value}" for label, value in chart.bars])
    return (
        f'A bar chart titled "{chart.title}" with {len(chart.bars)} blue bars on a 0 to 20 '
        f"scale, each labelled with its value: {facts}. The tallest bar is {tallest[0]} "
        f"({tallest[1]}) and the shortest is {shortest[0]} ({shortest[1]}); together the bars "
        f"add up to {sum(chart.values)} {chart.unit}."
    )


def chart_item(rng: random.Random, item_id: str, number: int) -> DemoItem:
    chart = sample_chart(rng)
    variant = ("shortest", "tallest", "value", "total")[number % 4]
    if variant == "tallest":
        key = _bar_key(chart, chart.tallest(), "tallest")
        prompt = "Which bar is the tallest, and what is its value?"
    elif variant == "shortest":
        key = _bar_key(chart, chart.shortest(), "shortest")
        prompt = "Which bar is the shortest, and what is its value?"
    elif variant == "value":
        label, value = rng.choice(chart.bars)
        key = _number_key(chart, value, f"The {label} bar shows {{}}.", 3)
        prompt = f"What value does the {label} bar show?"
    else:
        key = _number_key(chart, sum(chart.values), f"The bars add up to {{}} {chart.unit}.", 5)
        prompt = "What is the total of all the bars in the chart?"
    turn = DemoTurn(prompt, "chart reading", key)
    return one_picture_item(
        item_id,
        "charts",
        "bar chart reading",
        draw_chart(chart),
        (turn,),
        chart_caption(chart),
        chart,
    )


# --- text reading ------------------------------------------------------------------------------

#: Characters a hasty reader confuses, and what they take them for.
_LOOKALIKES = {
    "O": "0", "0": "O", "I": "1", "1": "7", "S": "5", "5": "S", "B": "8", "8": "B", "E": "F",
    "A": "4", "M": "N", "N": "M", "R": "P", "a": "o", "e": "c", "l": "I", "t": "f", "6": "8",
    "3": "8", "2": "Z", "4": "A", "7": "1", "9": "g",
}  # fmt: skip


def misread(lines: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    """The text with one character read as a look-alike."""
    spots = [
        (i, j) for i, line in enumerate(lines) for j, ch in enumerate(line) if ch in _LOOKALIKES
    ]
    i, j = rng.choice(spots)
    line = lines[i]
    changed = line[:j] + _LOOKALIKES[line[j]] + line[j + 1 :]
    return (*lines[:i], changed, *lines[i + 1 :])


def text_item(rng: random.Random, item_id: str, number: int) -> DemoItem:
    sign: Sign = sample_sign(rng, SIGN_STYLES[(number - 1) % len(SIGN_STYLES)])

    def state(lines: tuple[str, ...]) -> str:
        if len(lines) == 1:
            return f'The {sign.style} reads "{lines[0]}".'
        return (
            f'The {sign.style} reads "{lines[0]}" on the first line and "{lines[1]}" on the second.'
        )

    def explain(lines: tuple[str, ...]) -> str:
        block = "\n".join(lines)
        return (
            f"### Text in the image\n\nThe {sign.style} carries "
            f"{counted(len(lines), 'line')} of {sign.ink_name} text on {sign.background_name}:"
            f"\n\n```\n{block}\n```\n\n{state(lines)}"
        )

    prompt = (
        "Read the text in the image."
        if number % 2
        else f"What does this {sign.style} say? Copy the text exactly."
    )
    quoted = join_words([f'"{line}"' for line in sign.lines])
    caption = (
        f"A drawing of a {sign.style}: {sign.ink_name} lettering on {sign.background_name}, set "
        f"against a grey wall. Line by line it reads {quoted}, in a plain sans-serif typeface. "
        "Nothing else is in the picture."
    )
    key = AnswerKey(
        truth=sign.lines,
        state=state,
        terse=lambda lines: " / ".join(lines),
        explain=explain,
        mistake=lambda r: misread(sign.lines, r),
    )
    turn = DemoTurn(prompt, "ocr", key)
    return one_picture_item(item_id, "ocr", "text reading", draw_sign(sign), (turn,), caption, sign)


# --- clocks ------------------------------------------------------------------------------------


def _time(value: tuple[int, int]) -> str:
    return f"{value[0]}:{value[1]:02d}"


def _hour_hand(clock: Clock) -> str:
    if clock.minute == 0:
        return f"points at the {clock.hour}"
    return f"sits between the {clock.hour} and the {clock.hour % 12 + 1}"


def clock_item(rng: random.Random, item_id: str, number: int) -> DemoItem:
    clock = sample_clock(rng)
    truth = (clock.hour, clock.minute)
    mark = clock.minute // 5 or 12

    def state(value: tuple[int, int]) -> str:
        return f"The clock shows {_time(value)}."

    def explain(value: tuple[int, int]) -> str:
        return (
            f"### Reading the clock\n\n- The short black hour hand {_hour_hand(clock)}.\n"
            f"- The long red minute hand points at the {mark}, which means "
            f"{clock.minute} minutes past the hour.\n\n**The time is {_time(value)}.**"
        )

    wrong = [
        (mark, (clock.hour % 12) * 5),  # the two hands read the wrong way round
        (clock.hour, (clock.minute + 5) % 60),
        (clock.hour, (clock.minute - 5) % 60),
        (clock.hour % 12 + 1, clock.minute),
        ((clock.hour - 2) % 12 + 1, clock.minute),
    ]
    key = AnswerKey(
        truth=truth,
        state=state,
        terse=_time,
        explain=explain,
        mistake=lambda r: other_than(truth, wrong, r),
        miscount=lambda v: (v[0] % 12 + 1, v[1]),
    )
    prompt = ("What time does the clock show?", "What time is it on this clock?")[number % 2]
    caption = (
        "An analogue clock with a white face, the numbers 1 to 12 and minute ticks. The short "
        f"black hour hand {_hour_hand(clock)} and the long red minute hand points at the {mark}, "
        f"so the clock shows {_time(truth)}."
    )
    turn = DemoTurn(prompt, "clock reading", key)
    return one_picture_item(
        item_id, "clocks", "clock reading", draw_clock(clock), (turn,), caption, clock
    )


# --- spot the difference -----------------------------------------------------------------------


def _short_change(change: Change) -> str:
    before, after = change.before, change.after
    if change.kind == "add":
        assert after is not None
        return f"added: {after.colour} {after.kind} ({cell_name(after.row, after.column)})"
    assert before is not None
    what = f"{before.colour} {before.kind} ({cell_name(before.row, before.column)})"
    if change.kind == "remove":
        return f"removed: {what}"
    assert after is not None
    if change.kind == "recolour":
        return f"{what} is now {after.colour}"
    if change.kind == "reshape":
        return f"{what} is now a {after.kind}"
    return f"{what} moved to {cell_name(after.row, after.column)}"


def other_change(scene: ShapeScene, truth: Change, rng: random.Random) -> Change:
    """A change that could have been made to ``scene`` and reads differently from ``truth``."""
    kinds = [k for k in CHANGE_KINDS if possible_changes(scene, k)]
    for _ in range(100):
        change, _after = sample_change(rng, scene, rng.choice(kinds))
        if describe_change(change) != describe_change(truth):
            return change
    raise RuntimeError("no other change found")  # cannot happen with four or more shapes


def difference_item(rng: random.Random, item_id: str, number: int) -> DemoItem:
    kind = CHANGE_KINDS[(number - 1) % len(CHANGE_KINDS)]
    before = sample_grid_scene(rng)
    while not possible_changes(before, kind):
        before = sample_grid_scene(rng)
    change, after = sample_change(rng, before, kind)
    key = AnswerKey(
        truth=change,
        state=describe_change,
        terse=_short_change,
        explain=lambda c: (
            "### Comparing the two images\n\n"
            f"**Before:** {describe_grid(before)}\n\n**After:** {describe_grid(after)}\n\n"
            f"**Difference:** {describe_change(c)}"
        ),
        mistake=lambda r: other_change(before, change, r),
    )
    prompt = (
        "The first image is BEFORE and the second is AFTER. What changed between the two images?"
    )
    caption = (
        f"Two drawings of the same 3-by-3 grid. First image: {describe_grid(before)} "
        f"Second image: exactly one thing differs. {describe_change(change)}"
    )
    return DemoItem(
        external_id=item_id,
        family="spot-the-difference",
        category="spot the difference",
        images=(
            image_of(f"{item_id}-before.png", draw_shapes(before)),
            image_of(f"{item_id}-after.png", draw_shapes(after)),
        ),
        turns=(DemoTurn(prompt, "spot the difference", key),),
        caption=caption,
        image_captions=(f"Before: {describe_grid(before)}", f"After: {describe_grid(after)}"),
        scene={
            "before": scene_data(before),
            "after": scene_data(after),
            "change": dataclasses.asdict(change),
        },
    )
