"""Discovery of plugins through the ``workbench.plugins`` entry-point group, and the registry
the rest of the app asks for importers, annotation protocols and judge templates (and, as later
parts add them, scores). The core names no benchmark: everything benchmark-specific arrives
as a plugin.

Only installed entry points are loaded; nothing is imported from arbitrary paths.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Protocol, TypeVar

from workbench.domain.protocols import AnnotationProtocol
from workbench.errors import WorkbenchError
from workbench.importers.base import Importer
from workbench.judge.templates import JudgeTemplate

if TYPE_CHECKING:  # the stats package pulls in pandas; plugins only name the type
    from workbench.stats.benchmark_scores import BenchmarkScores

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "workbench.plugins"


@dataclass(frozen=True)
class Plugin:
    """What one plugin contributes. Fields are tuples so a plugin is an immutable manifest."""

    name: str
    version: str
    description: str
    importers: tuple[Importer, ...] = ()
    protocols: tuple[AnnotationProtocol, ...] = ()
    judge_templates: tuple[JudgeTemplate, ...] = ()
    scores: tuple[BenchmarkScores, ...] = ()


class UnknownFormatError(WorkbenchError):
    pass


class UnknownProtocolError(WorkbenchError):
    pass


class UnknownJudgeTemplateError(WorkbenchError):
    pass


@dataclass(frozen=True)
class PluginLoadFailure:
    entry_point: str
    error: str


@dataclass
class Registry:
    plugins: list[Plugin] = field(default_factory=list)
    failures: list[PluginLoadFailure] = field(default_factory=list)

    def add(self, plugin: Plugin) -> None:
        for what, taken, offered in (
            ("import format", self.importers(), plugin.importers),
            ("annotation protocol", self.protocols(), plugin.protocols),
            ("judge template", self.judge_templates(), plugin.judge_templates),
        ):
            names = [contribution.name for contribution in offered]
            clash = {c.name for c in taken} & set(names) | {n for n in names if names.count(n) > 1}
            if clash:
                raise WorkbenchError(
                    f"plugin {plugin.name} registers {what}(s) already taken: "
                    + ", ".join(sorted(clash))
                )
        self.plugins.append(plugin)

    def importers(self) -> list[Importer]:
        return [importer for plugin in self.plugins for importer in plugin.importers]

    def importer(self, name: str) -> Importer:
        return _named(self.importers(), name, UnknownFormatError, "import format", "formats")

    def protocols(self) -> list[AnnotationProtocol]:
        return [protocol for plugin in self.plugins for protocol in plugin.protocols]

    def protocol(self, name: str) -> AnnotationProtocol:
        return _named(
            self.protocols(), name, UnknownProtocolError, "annotation protocol", "protocols"
        )

    def judge_templates(self) -> list[JudgeTemplate]:
        return [template for plugin in self.plugins for template in plugin.judge_templates]

    def judge_template(self, name: str) -> JudgeTemplate:
        return _named(
            self.judge_templates(), name, UnknownJudgeTemplateError, "judge template", "templates"
        )

    def plugin_of_template(self, template: JudgeTemplate) -> Plugin:
        return next(plugin for plugin in self.plugins if template in plugin.judge_templates)


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_Contribution = TypeVar("_Contribution", bound=_Named)


def _named(
    contributions: list[_Contribution],
    name: str,
    error: type[WorkbenchError],
    what: str,
    plural: str,
) -> _Contribution:
    """The contribution called ``name``, or ``error`` listing the names there are."""
    for contribution in contributions:
        if contribution.name == name:
            return contribution
    known = ", ".join(sorted(c.name for c in contributions)) or "none"
    raise error(f"unknown {what} '{name}' (known {plural}: {known})")


def load_registry() -> Registry:
    """Load every installed plugin. A plugin that fails to load is recorded, not fatal."""
    registry = Registry()
    for entry_point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name):
        try:
            plugin = entry_point.load()
            if callable(plugin) and not isinstance(plugin, Plugin):
                plugin = plugin()
            if not isinstance(plugin, Plugin):
                raise TypeError(f"entry point gave {type(plugin).__name__}, not a Plugin")
            registry.add(plugin)
        except Exception as error:  # a broken third-party plugin must not take the app down
            log.warning("plugin %s failed to load: %s", entry_point.name, error)
            registry.failures.append(PluginLoadFailure(entry_point.value, str(error)))
    return registry


@cache
def registry() -> Registry:
    """The process-wide registry, loaded on first use."""
    return load_registry()


def core_plugin() -> Plugin:
    """The formats of VLM Workbench itself, registered through the same entry point group as
    any benchmark (``core``), so the registry treats them alike."""
    from workbench import __version__
    from workbench.importers.canonical import CanonicalJsonlImporter

    return Plugin(
        name="core",
        version=__version__,
        description="Formats of VLM Workbench itself",
        importers=(CanonicalJsonlImporter(),),
    )
