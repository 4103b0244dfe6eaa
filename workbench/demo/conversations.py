"""Three-turn demo conversations in ConvBench's shape: perception, then reasoning, then a
creative task with focus points, all on one image."""

from __future__ import annotations

import random
from collections import Counter

from workbench.demo.drawing import draw_chart, draw_shapes
from workbench.demo.families import chart_caption, chart_table, one_picture_item
from workbench.demo.keys import AnswerKey, DemoItem, DemoTurn, near_miss, other_than
from workbench.demo.scenes import BarChart, sample_chart, sample_scattered_scene
from workbench.demo.wording import counted, inventory_text, join_words, number_word

Tally = tuple[tuple[str, int], ...]


def _tally_text(tally: Tally) -> str:
    total = sum(n for _, n in tally)
    return f"There are {total} shapes: " + join_words([f"{n} {c}" for c, n in tally]) + "."


def _tally_table(tally: Tally) -> str:
    rows = ["| colour | shapes |", "|---|---:|", *(f"| {c} | {n} |" for c, n in tally)]
    return "\n".join(rows)


def _retallied(tally: Tally, rng: random.Random) -> Tally:
    """The tally with one colour miscounted by one (a colour counted as zero is dropped)."""
    index = rng.randrange(len(tally))
    colour, n = tally[index]
    changed = n + rng.choice((-1, 1))
    rest = [*tally[:index], *([(colour, changed)] if changed else []), *tally[index + 1 :]]
    return tuple(rest)


def _one_more(tally: Tally) -> Tally:
    (colour, n), *rest = tally
    return ((colour, n + 1), *rest)


def _story(tally: Tally) -> str:
    total = sum(n for _, n in tally)
    colours = join_words([c for c, _ in tally])
    return (
        f"{number_word(total).capitalize()} little shapes lived together on a sunny page. "
        f"The {colours} ones took turns leading a parade from one side to the other. "
        "At bedtime they lined up in neat rows and whispered goodnight to each other."
    )


def shape_story_item(rng: random.Random, item_id: str) -> DemoItem:
    scene = sample_scattered_scene(rng, count=(5, 9), palette=3)
    counts = Counter(s.colour for s in scene.shapes)
    tally: Tally = tuple(sorted(counts.items(), key=lambda t: (-t[1], t[0])))
    total = len(scene.shapes)
    colours = join_words([c for c, _ in tally])

    perception = AnswerKey(
        truth=tally,
        state=_tally_text,
        terse=lambda t: f"{sum(n for _, n in t)}: " + ", ".join(f"{n} {c}" for c, n in t),
        explain=lambda t: f"### Shapes by colour\n\n{_tally_table(t)}\n\n**{_tally_text(t)}**",
        mistake=lambda r: _retallied(tally, r),
        miscount=_one_more,
    )
    removed = rng.choice([c for c, _ in tally])
    left = total - counts[removed]

    def state_left(n: int) -> str:
        return f"{counted(n, 'shape')} would be left."

    reasoning = AnswerKey(
        truth=left,
        state=state_left,
        terse=str,
        explain=lambda n: (
            f"### Taking away the {removed} shapes\n\nThere are {total} shapes in all and "
            f"{counts[removed]} of them are {removed}, so {total} - {counts[removed]} = "
            f"**{left}**.\n\n{state_left(n)}"
        ),
        mistake=lambda r: near_miss(left, r),
        miscount=lambda n: n + 1,
    )
    creation = AnswerKey(
        truth=tally,
        state=_story,
        terse=lambda t: (
            f"{number_word(sum(n for _, n in t)).capitalize()} "
            f"{join_words([c for c, _ in t])} shapes had a parade and went to bed."
        ),
        explain=lambda t: f"### The Shape Parade\n\n{_story(t)}\n\n*The end.*",
        mistake=lambda r: _retallied(tally, r),
        miscount=_one_more,
    )
    focus = (
        f"1. Says there are {total} shapes in all.\n"
        f"2. Names every colour in the picture: {colours}.\n"
        "3. Is exactly three sentences long.\n"
        "4. Uses simple, friendly words a young child would understand."
    )
    turns = (
        DemoTurn(
            "How many shapes are in the picture, and what colours are they?",
            "perception",
            perception,
        ),
        DemoTurn(
            f"If all the {removed} shapes were taken away, how many shapes would be left?",
            "reasoning",
            reasoning,
        ),
        DemoTurn(
            "Now write a three-sentence story for a young child about the shapes in this picture.",
            "creation",
            creation,
            focus_points=focus,
        ),
    )
    caption = (
        f"A drawing of {counted(total, 'flat shape')} scattered over a pale background: "
        f"{inventory_text(scene)}. By colour: " + join_words([f"{n} {c}" for c, n in tally]) + "."
    )
    return one_picture_item(
        item_id, "multi-turn", "shape story", draw_shapes(scene), turns, caption, scene
    )


Bars = tuple[tuple[str, int], ...]
#: (leader, its value, last, its value)
News = tuple[str, int, str, int]


def _bars_text(bars: Bars) -> str:
    return "The bars show " + join_words([f"{label} {value}" for label, value in bars]) + "."


def _misread_bar(bars: Bars, rng: random.Random) -> Bars:
    index = rng.randrange(len(bars))
    label, value = bars[index]
    return (*bars[:index], (label, near_miss(value, rng, floor=1)), *bars[index + 1 :])


def chart_news_item(rng: random.Random, item_id: str) -> DemoItem:
    chart: BarChart = sample_chart(rng)
    (top, top_value), (low, low_value) = chart.tallest(), chart.shortest()
    table = chart_table(chart)

    perception = AnswerKey(
        truth=chart.bars,
        state=_bars_text,
        terse=lambda b: ", ".join(f"{label} {value}" for label, value in b),
        explain=lambda b: f"### The values\n\n{table}\n\n**{_bars_text(b)}**",
        mistake=lambda r: _misread_bar(chart.bars, r),
        miscount=lambda b: tuple((label, value + 1) for label, value in b),
    )
    gap = top_value - low_value

    def state_gap(n: int) -> str:
        return f"The tallest bar is {n} {chart.unit} higher than the shortest."

    reasoning = AnswerKey(
        truth=gap,
        state=state_gap,
        terse=str,
        explain=lambda n: (
            f"### Tallest minus shortest\n\nThe tallest bar is {top} at {top_value} and the "
            f"shortest is {low} at {low_value}, so the difference is {top_value} - {low_value} "
            f"= **{gap}**.\n\n{state_gap(n)}"
        ),
        mistake=lambda r: near_miss(gap, r, spread=3),
        miscount=lambda n: n + 1,
    )

    def news(facts: News) -> str:
        leader, value, last, last_value = facts
        return (
            f"Headline: {leader} tops the chart\n"
            f'Summary: {leader} led "{chart.title}" with {value} {chart.unit}, while {last} '
            f"came last with {last_value}."
        )

    truth: News = (top, top_value, low, low_value)
    runner_up = sorted(chart.bars, key=lambda b: -b[1])[1]
    wrong_news = [
        (runner_up[0], runner_up[1], low, low_value),
        (top, top_value + 2, low, low_value),
        (top, top_value, low, low_value + 1),
    ]
    creation = AnswerKey(
        truth=truth,
        state=news,
        terse=lambda f: f"{f[0]} tops the chart with {f[1]}; {f[2]} is last with {f[3]}.",
        explain=lambda f: "### Headline\n\n**{} Tops the Chart**\n\n### Summary\n\n{}".format(
            f[0], news(f).split("Summary: ", 1)[1]
        ),
        mistake=lambda r: other_than(truth, wrong_news, r),
        miscount=lambda f: (f[0], f[1] + 1, f[2], f[3] + 1),
    )
    focus = (
        f"1. The headline names {top} as the leader.\n"
        f"2. The summary gives {top}'s value ({top_value}) and names the lowest bar, {low} "
        f"({low_value}).\n"
        "3. One headline followed by exactly one summary sentence.\n"
        "4. A neutral, factual tone."
    )
    turns = (
        DemoTurn("What value does each bar in the chart show?", "perception", perception),
        DemoTurn(
            "How much higher is the tallest bar than the shortest one?", "reasoning", reasoning
        ),
        DemoTurn(
            "Write a news headline and a one-sentence summary about this chart.",
            "creation",
            creation,
            focus_points=focus,
        ),
    )
    return one_picture_item(
        item_id, "multi-turn", "chart news", draw_chart(chart), turns, chart_caption(chart), chart
    )


def conversation_item(rng: random.Random, item_id: str, number: int) -> DemoItem:
    return shape_story_item(rng, item_id) if number % 2 else chart_news_item(rng, item_id)
