"""The one mechanism every training config is checked by: declared fields, each with its check.

A config schema is a dataclass whose fields are ``setting(default, check)`` (a value and
the :class:`Check` it must pass; :func:`sections` checks a list of nested dataclasses) or
``section(cls)`` (a nested dataclass of the same kind). :func:`parse_section` validates a
plain mapping (as read from YAML) key by key: an unknown key, a wrong type or an impossible
value is a :class:`ConfigError` naming the key, what it must be and what it was, so a typo
never trains a silently different agent, nor fails after an hour of training. Each pipeline
declares its schema in its own ``config.py`` (see :mod:`training.framework.config` for what
all of them share).
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml


class ConfigError(ValueError):
    """A config (file, command-line value or option) that cannot be used as written."""


# -- what a value must be ------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """What a config value must be: ``requirement`` in words, ``accepts`` as a test.

    ``convert`` turns an accepted value into its stored form (an int learning rate into
    a float, a list into a list of checked items).
    """

    requirement: str
    accepts: Callable[[Any], bool]
    convert: Callable[[Any], Any] = lambda value: value

    def __call__(self, value: Any, where: str) -> Any:
        if not self.accepts(value):
            raise ConfigError(f"{where} must be {self.requirement}, got {value!r}")
        return self.convert(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: A number in exponent notation without a dot (``1e-3``), which YAML 1.1 (PyYAML) reads as a string.
_EXPONENT_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+")


def _as_number(value: Any) -> Any:
    """``value``, or the float a string such as ``"1e-3"`` spells (YAML reads ``1e-3`` as text, not as 0.001)."""
    return float(value) if isinstance(value, str) and _EXPONENT_NUMBER.fullmatch(value.strip()) else value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def integer(minimum: int) -> Check:
    return Check(
        f"an integer >= {minimum}" if minimum != 1 else "an integer > 0", lambda v: _is_int(v) and v >= minimum
    )


def number(minimum: float | None = None, maximum: float | None = None, above: float | None = None) -> Check:
    """A float (ints accepted): ``>= minimum``, ``<= maximum``, ``> above``."""
    bounds = [
        f">= {minimum}" if minimum is not None else "",
        f"> {above}" if above is not None else "",
        f"<= {maximum}" if maximum is not None else "",
    ]
    if minimum is not None and maximum is not None:
        bounds = [f"in [{minimum}, {maximum}]"]

    def accepts(value: Any) -> bool:
        value = _as_number(value)
        return (
            _is_number(value)
            and (minimum is None or value >= minimum)
            and (maximum is None or value <= maximum)
            and (above is None or value > above)
        )

    return Check(" ".join(["a number", *filter(None, bounds)]), accepts, lambda value: float(_as_number(value)))


def optional(check: Check) -> Check:
    return Check(
        f"{check.requirement} or null",
        lambda v: v is None or check.accepts(v),
        lambda v: None if v is None else check.convert(v),
    )


def one_of(*choices: str) -> Check:
    return Check(f"one of {list(choices)}", lambda v: isinstance(v, str) and v in choices)


def list_of(item: Check, non_empty: bool = True) -> Check:
    return Check(
        f"a {'non-empty ' if non_empty else ''}list of {item.requirement}s",
        lambda v: isinstance(v, list) and (bool(v) or not non_empty) and all(item.accepts(x) for x in v),
        lambda v: [item.convert(x) for x in v],
    )


BOOL = Check("true or false", lambda v: isinstance(v, bool))
TEXT = Check("a string", lambda v: isinstance(v, str) and v != "")
OPTIONAL_TEXT = Check("a string or null", lambda v: v is None or (isinstance(v, str) and v != ""))
MAPPING = Check("a mapping of keys to values", lambda v: isinstance(v, dict), dict)
AGENT_SPECS = list_of(Check("agent spec (a string)", lambda v: isinstance(v, str) and v != ""))
LAYERS = list_of(integer(1))
NET_ARCH = Check(
    "a list of layer sizes (integers > 0) or a mapping {pi: [...], vf: [...]}",
    lambda v: (
        LAYERS.accepts(v)
        or (isinstance(v, dict) and set(v) == {"pi", "vf"} and all(LAYERS.accepts(x) for x in v.values()))
    ),
)


@dataclass(frozen=True)
class Table(Check):
    """A mapping whose keys are those of ``settings``, each value checked by its own :class:`Check`."""

    settings: dict[str, Check] = field(default_factory=dict)
    name: str = ""

    def __call__(self, value: Any, where: str) -> dict[str, Any]:
        value = MAPPING(value, where)
        unknown = sorted(set(value) - set(self.settings))
        if unknown:
            raise ConfigError(f"unknown {self.name} key(s) {unknown}; known keys: {sorted(self.settings)}")
        return {key: self.settings[key](item, f"{where}.{key}") for key, item in value.items()}


def table(settings: dict[str, Check], name: str) -> Table:
    return Table(f"a mapping of {name} settings", lambda v: isinstance(v, dict), settings=settings, name=name)


@dataclass(frozen=True)
class Sections(Check):
    """A non-empty list of mappings, each validated into the schema dataclass ``cls`` as a section is
    (an error names the item: ``stages[1].teacher``)."""

    cls: type | None = None

    def __call__(self, value: Any, where: str) -> list[Any]:
        if not self.accepts(value):
            raise ConfigError(f"{where} must be {self.requirement}, got {value!r}")
        return [parse_section(self.cls, item, f"{where}[{index}].") for index, item in enumerate(value)]


def sections(cls: type, name: str) -> Sections:
    """A list of ``name`` mappings, each a ``cls`` (a dataclass of ``setting`` fields)."""
    return Sections(
        f"a non-empty list of {name} mappings",
        lambda v: isinstance(v, list) and bool(v) and all(isinstance(item, dict) for item in v),
        cls=cls,
    )


# -- declaring and reading a schema --------------------------------------------------------------


def setting(default: Any, check: Check):
    """A config field: its default and its :class:`Check`."""
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata={"check": check})
    return field(default=default, metadata={"check": check})


def section(cls: type, **defaults: Any):
    """A nested config section (a dataclass of ``setting`` fields), all defaults when absent.

    ``defaults`` replace the section class's own defaults in this schema (the same
    section serves pipelines whose sensible defaults differ).
    """
    return field(
        default_factory=lambda: cls(**copy.deepcopy(defaults)), metadata={"section": cls, "defaults": defaults}
    )


def parse_section(cls: type, raw: Any, prefix: str = "", defaults: dict[str, Any] | None = None):
    """Validate the plain mapping ``raw`` into the schema dataclass ``cls``, key by key."""
    name = prefix.rstrip(".") or "config"
    raw = MAPPING(raw if raw is not None else {}, name)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        where = f"{name} " if prefix else ""
        raise ConfigError(f"unknown {where}key(s) {unknown}; known keys: {sorted(fields)}")
    values = copy.deepcopy(defaults or {})
    for key, value in raw.items():
        metadata = fields[key].metadata
        if "section" in metadata:
            values[key] = parse_section(metadata["section"], value, f"{prefix}{key}.", metadata["defaults"])
        else:
            values[key] = metadata["check"](value, f"{prefix}{key}")
    return cls(**values)


def yaml_error_line(error: yaml.YAMLError) -> str:
    """A YAML error on one line: the problem and where it is."""
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    mark = getattr(error, "problem_mark", None)
    return f"{problem} (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else problem


def read_mapping(path: str | Path) -> dict[str, Any]:
    """The mapping a YAML config file holds, or a ConfigError naming the file and the problem."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"config file {path} is a folder, not a YAML file") from None
    except PermissionError:
        raise ConfigError(f"config file {path} cannot be read (permission denied)") from None
    except UnicodeDecodeError:
        raise ConfigError(f"config file {path} is not a text file") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"config file {path} is not valid YAML: {yaml_error_line(error)}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"config file {path}: expected a mapping of keys, got {type(raw).__name__}")
    return raw
