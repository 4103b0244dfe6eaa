"""The contradiction graph of one item as a matplotlib figure: models as nodes, an arrow from the
less to the more preferred model, arrows on a preference cycle red and the others green, opacity
the consensus (CHIRP's preference graphs). No pyplot, no Qt."""

from __future__ import annotations

import networkx as nx
from matplotlib.figure import Figure

CYCLE_COLOUR = "#d62728"  # red
CONSISTENT_COLOUR = "#2ca02c"  # green
#: the faintest an arrow gets, so a weak consensus stays visible
MIN_OPACITY = 0.25


def edge_colours(graph: nx.DiGraph[str]) -> dict[tuple[str, str], str]:
    """Each edge's colour: red when it lies on a cycle, green otherwise. An edge lies on a cycle
    exactly when both ends are in the same strongly connected component (Tarjan 1972)."""
    component_of = {
        node: index
        for index, component in enumerate(nx.strongly_connected_components(graph))
        for node in component
    }
    return {
        (loser, winner): (
            CYCLE_COLOUR if component_of[loser] == component_of[winner] else CONSISTENT_COLOUR
        )
        for loser, winner in graph.edges
    }


def edge_opacity(consensus: float) -> float:
    """Arrow opacity for a consensus in [0.5, 1] (share of the pair's votes for the winner)."""
    share = min(1.0, max(0.5, float(consensus)))
    return MIN_OPACITY + (1.0 - MIN_OPACITY) * (share - 0.5) / 0.5


def contradiction_graph_figure(graph: nx.DiGraph[str], title: str = "Preferences") -> Figure:
    """The figure of ``graph`` (edges loser -> winner with a ``consensus`` attribute), nodes on a
    circle in name order so the same models sit in the same places from item to item."""
    figure = Figure(figsize=(5.5, 5.0), layout="constrained")
    axes = figure.add_subplot()
    axes.set_title(title, fontsize=10)
    axes.set_axis_off()
    if graph.number_of_nodes() == 0:
        axes.text(0.5, 0.5, "no preferences", ha="center", va="center", color="gray")
        return figure
    # the nodes in sorted order around the circle (what circular_layout does with a node list)
    ordered: nx.Graph[str] = nx.Graph()
    ordered.add_nodes_from(sorted(graph.nodes))
    layout = nx.circular_layout(ordered)
    nx.draw_networkx_nodes(
        graph, layout, ax=axes, node_color="#e8e8e8", edgecolors="#888888", node_size=1100
    )
    nx.draw_networkx_labels(graph, layout, ax=axes, font_size=7)
    colours = edge_colours(graph)
    for (loser, winner), colour in sorted(colours.items()):
        consensus = graph.edges[loser, winner].get("consensus", 1.0)
        nx.draw_networkx_edges(
            graph,
            layout,
            edgelist=[(loser, winner)],
            ax=axes,
            edge_color=colour,
            alpha=edge_opacity(consensus),
            width=2.0,
            arrows=True,
            arrowsize=18,
            node_size=1100,
            connectionstyle="arc3,rad=0.08",
        )
    margin = 0.7  # room for the labels of the outer nodes
    axes.set_xlim(-1 - margin, 1 + margin)
    axes.set_ylim(-1 - margin, 1 + margin)
    return figure
