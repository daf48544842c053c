"""Component styles without a new throwaway node per restyle, for a host that runs many session apps in one heap.

A widget with component classes (Textual's ``COMPONENT_CLASSES``: the key bar's ``keybar--key``, an input's cursor,
a select's options, a toast's title) has them styled each time the stylesheet is applied to it: on mount, and
again at every focus, hover or class change. Textual's ``Stylesheet._process_component_classes`` makes a new
virtual ``DOMNode`` per component class each time, styles it and keeps its styles. A ``DOMNode`` refers to itself
through its styles, so every replaced virtual node is garbage in a reference cycle (about 60 objects each) that only
a garbage collection frees. On the way from the first screen to a table (name, lobby, new-table dialog, waiting
room), one session made 106 of them: three quarters of the 8,756 objects of garbage it left, which the host's
freezing collector (``collector.py``) then keeps until a deep collection, about a second of pause at 50 sessions.

``reuse_virtual_nodes`` installs a version that keeps one virtual node per widget and component class and styles
it again, so a restyle makes no garbage. What it computes is Textual's own: the same ``apply`` on a node with the
same class and parent, and the widget is refreshed when a component's rules changed, as Textual does. It relies on
private details (``_process_component_classes``, ``_get_component_classes``, ``_component_styles`` and the rules
dictionary of a ``RenderStyles``' base styles): ``check_component_style_internals`` verifies them at startup and
raises ``ComponentStyleInternalsChanged`` rather than guessing.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

_TEXTUAL_PROCESS: Callable[[Stylesheet, DOMNode], None] = Stylesheet._process_component_classes
VIRTUAL_NODES = "_nothanks_component_nodes"  # the attribute each widget keeps its virtual nodes in


class ComponentStyleInternalsChanged(RuntimeError):
    """The installed Textual no longer styles component classes the way this module expects."""


def _process_component_classes(self: Stylesheet, node: DOMNode) -> None:
    component_classes = node._get_component_classes()
    if not component_classes:
        return
    virtual_nodes: dict[str, DOMNode] | None = node.__dict__.get(VIRTUAL_NODES)
    if virtual_nodes is None:
        virtual_nodes = node.__dict__[VIRTUAL_NODES] = {}
    refresh_node = False
    node._component_styles.clear()
    for component in sorted(component_classes):
        virtual_node = virtual_nodes.get(component)
        if virtual_node is None:
            virtual_node = virtual_nodes[component] = DOMNode(classes=component)
            virtual_node._attach(node)
            refresh_node = True  # a component styled for the first time (Textual compares with no styles: differs)
        before = dict(virtual_node.styles.base._rules)
        self.apply(virtual_node, animate=False)
        if before != virtual_node.styles.base._rules:
            refresh_node = True
        node._component_styles[component] = virtual_node.styles
    if refresh_node:
        node.refresh()


def check_component_style_internals() -> None:
    """Raise ``ComponentStyleInternalsChanged`` unless the private details relied on are there."""
    probe = DOMNode(classes="probe")
    missing = [
        name
        for name, present in (
            ("Stylesheet._process_component_classes", hasattr(Stylesheet, "_process_component_classes")),
            ("DOMNode._get_component_classes", hasattr(probe, "_get_component_classes")),
            ("DOMNode._component_styles", isinstance(getattr(probe, "_component_styles", None), dict)),
            ("DOMNode._attach", hasattr(probe, "_attach")),
            ("Styles._rules", isinstance(getattr(probe.styles.base, "_rules", None), dict)),
        )
        if not present
    ]
    if missing:
        raise ComponentStyleInternalsChanged(
            "textual changed; review server/nothanks_server/ssh/component_styles.py: missing " + ", ".join(missing)
        )


def reuse_virtual_nodes() -> None:
    """Install the garbage-free component styling (process-wide; idempotent)."""
    check_component_style_internals()
    Stylesheet._process_component_classes = _process_component_classes  # type: ignore[method-assign]


def restore_textual() -> None:
    """Put Textual's own method back (tests compare the two)."""
    Stylesheet._process_component_classes = _TEXTUAL_PROCESS  # type: ignore[method-assign]
