"""Discovery of plugins through the ``workbench.plugins`` entry-point group, and the registry
the rest of the app asks for importers, annotation protocols and judge templates (and, as later
parts add them, scores). The core names no benchmark: everything benchmark-specific arrives
as a plugin.

Only installed entry points are loaded; nothing is imported from arbitrary paths. A plugin's
manifest may name an importer (:class:`LazyImporter`) instead of holding one, so loading the
registry does not import every file reader (pyarrow, openpyxl, ...): the importer's module
loads when that importer is first asked for.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Protocol, TypeVar

from workbench import __version__
from workbench.domain.protocols import AnnotationProtocol
from workbench.errors import WorkbenchError
from workbench.importers.base import Importer
from workbench.judge.templates import JudgeTemplate

if TYPE_CHECKING:  # the stats package pulls in pandas; plugins only name the type
    from workbench.stats.benchmark_scores import BenchmarkScores

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "workbench.plugins"

#: The plugin API this app offers: what docs/plugins.md names (``Plugin``, ``Importer`` and
#: ``ImportReport``, the domain records, ``AnnotationProtocol``, ``JudgeTemplate`` and the
#: parsers, ``BenchmarkScores``). It goes up when a change to those would break a plugin
#: written against the one before.
PLUGIN_API_VERSION = 1
#: the versions a plugin may declare and still be loaded
SUPPORTED_PLUGIN_API_VERSIONS = frozenset({PLUGIN_API_VERSION})


@dataclass(frozen=True)
class LazyImporter:
    """An importer named in a manifest (what ``workbench plugins`` lists), whose module is
    imported on first use: ``target`` is ``"module:ClassName"``, an :class:`Importer` subclass
    taking no arguments. The named fields must equal the class's own; :meth:`load` checks."""

    name: str
    version: str
    description: str
    target: str

    def load(self) -> Importer:
        """The importer, imported and made once per process (importers are stateless)."""
        return _load_importer(self)


@cache
def _load_importer(named: LazyImporter) -> Importer:
    module_name, _, attribute = named.target.partition(":")
    importer = getattr(importlib.import_module(module_name), attribute)()
    if not isinstance(importer, Importer):
        raise TypeError(f"{named.target} is a {type(importer).__name__}, not an Importer")
    found = (importer.name, importer.version, importer.description)
    if found != (named.name, named.version, named.description):
        # a manifest that drifted from its class would list one format and import another
        raise WorkbenchError(
            f"{named.target} is {found[0]!r} v{found[1]}, but its plugin names it "
            f"{named.name!r} v{named.version} (or with another description)"
        )
    return importer


def _loaded(importer: Importer | LazyImporter) -> Importer:
    return importer.load() if isinstance(importer, LazyImporter) else importer


@dataclass(frozen=True)
class Plugin:
    """What one plugin contributes. Fields are tuples so a plugin is an immutable manifest."""

    name: str
    version: str
    description: str
    #: the plugin API version (:data:`PLUGIN_API_VERSION`) the plugin was written for; an
    #: installed plugin that declares none, or one this app does not support, is not loaded
    api_version: int | None = None
    #: importers, or the names of importers loaded on first use
    importers: tuple[Importer | LazyImporter, ...] = ()
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
            ("import format", self.importer_manifests(), plugin.importers),
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
        """Every importer, loaded (their modules are imported here)."""
        return [_loaded(importer) for importer in self.importer_manifests()]

    def importer_manifests(self) -> list[Importer | LazyImporter]:
        """Every importer as the plugins name them: nothing is imported."""
        return [importer for plugin in self.plugins for importer in plugin.importers]

    def importer(self, name: str) -> Importer:
        """The importer called ``name``; only its own module is imported."""
        return _loaded(
            _named(self.importer_manifests(), name, UnknownFormatError, "import format", "formats")
        )

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
            check_api_version(plugin)
            registry.add(plugin)
        except Exception as error:  # a broken third-party plugin must not take the app down
            log.warning("plugin %s failed to load: %s", entry_point.name, error)
            registry.failures.append(PluginLoadFailure(entry_point.value, str(error)))
    return registry


class IncompatiblePluginError(WorkbenchError):
    pass


def check_api_version(plugin: Plugin) -> None:
    """Refuse a plugin written for a plugin API this app does not offer, naming the plugin, the
    version it declares and the ones supported."""
    supported = ", ".join(map(str, sorted(SUPPORTED_PLUGIN_API_VERSIONS)))
    if plugin.api_version is None:
        raise IncompatiblePluginError(
            f"plugin {plugin.name} {plugin.version} declares no api_version; a plugin states "
            f"the plugin API version it was written for (this app supports {supported}: "
            f"api_version={PLUGIN_API_VERSION} in its Plugin manifest, see docs/plugins.md)"
        )
    if plugin.api_version not in SUPPORTED_PLUGIN_API_VERSIONS:
        raise IncompatiblePluginError(
            f"plugin {plugin.name} {plugin.version} was written for plugin API version "
            f"{plugin.api_version}, and this app supports {supported}; install a version of "
            f"{plugin.name} written for API {PLUGIN_API_VERSION}"
        )


@cache
def registry() -> Registry:
    """The process-wide registry, loaded on first use."""
    return load_registry()


def core_plugin() -> Plugin:
    """The formats of VLM Workbench itself, registered through the same entry point group as
    any benchmark (``core``), so the registry treats them alike."""
    return Plugin(
        name="core",
        version=__version__,
        description="Formats of VLM Workbench itself",
        api_version=PLUGIN_API_VERSION,
        importers=(
            LazyImporter(
                "jsonl",
                "1",
                "VLM Workbench canonical item JSONL (docs/formats.md)",
                "workbench.importers.canonical:CanonicalJsonlImporter",
            ),
        ),
    )
