"""Generate ``arena_client.models`` from the arena's OpenAPI 3.1 document.

    python -m arena_client._codegen --from-server     # arena_api importable: no server needed
    python -m arena_client._codegen http://localhost:3001/openapi.json
    python -m arena_client._codegen openapi.json -o models.py

Each object schema becomes a pydantic class (snake_case fields, the wire's camelCase names as
their aliases), each other schema a type alias, and the native SSE framing union
(``NativeSseEvent``) the ``NATIVE_EVENTS`` table plus the ``NativeEvent`` union. The other
framing schemas (``*SseEvent``) describe SSE frames, not JSON bodies, and get nothing. The
output is already laid out as ``ruff format`` writes it, so it is committed as generated.

Only the standard library is needed, and ``httpx`` to read the document from a URL.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import keyword
import re
import sys
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_OUTPUT", "generate", "load", "main", "server_document"]

#: Where the CLI writes by default: ``models.py`` beside this module.
DEFAULT_OUTPUT = Path(__file__).with_name("models.py")

_LINE_LENGTH = 100  # the repository's ruff line length
_INDENT = "    "
_REF_PREFIX = "#/components/schemas/"
_FRAMING_SUFFIX = "SseEvent"
_NATIVE_UNION = "NativeSseEvent"
_PRIMITIVES = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "null": "None",
}
#: Names a field may not take: BaseModel's public attributes and the types the annotations use,
#: which a field of that name would shadow in its class body. Other ``model_*`` names are free
#: (``model_id``: the base model gives up pydantic's protected ``model_`` namespace).
_RESERVED = frozenset(
    {
        *("construct", "copy", "dict", "from_orm", "json", "parse_file", "parse_obj"),
        *("parse_raw", "schema", "schema_json", "update_forward_refs", "validate"),
        *("model_computed_fields", "model_config", "model_construct", "model_copy"),
        *("model_dump", "model_dump_json", "model_extra", "model_fields", "model_fields_set"),
        *("model_json_schema", "model_parametrized_name", "model_post_init", "model_rebuild"),
        *("model_validate", "model_validate_json", "model_validate_strings"),
        *("bool", "float", "int", "list", "str", "tuple"),
    }
)
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


# -- names ---------------------------------------------------------------------------------------


def _field_name(wire: str, taken: set[str]) -> str:
    """``matchupId`` -> ``matchup_id``; a keyword, a reserved or a taken name gets a ``_``."""
    name = re.sub(r"\W", "_", _CAMEL_HUMP.sub("_", wire)).lower()
    if name[:1].isdigit():
        name = f"f_{name}"
    if keyword.iskeyword(name) or name in _RESERVED:
        name += "_"
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def _ref_name(ref: str) -> str:
    return ref.removeprefix(_REF_PREFIX) if ref.startswith(_REF_PREFIX) else "Any"


# -- literals ------------------------------------------------------------------------------------


def _string(text: str) -> str:
    """A string literal, double-quoted as ``ruff format`` prefers."""
    quoted = repr(text)
    if quoted.startswith("'") and '"' not in text:
        quoted = f'"{quoted[1:-1]}"'
    return quoted


def _literal(value: Any) -> str:
    """Python source for a JSON value."""
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return f"[{', '.join(_literal(item) for item in value)}]"
    if isinstance(value, dict):
        pairs = (f"{_string(key)}: {_literal(item)}" for key, item in value.items())
        return "{" + ", ".join(pairs) + "}"
    return repr(value)


# -- types ---------------------------------------------------------------------------------------


def _members(schema: Any) -> list[str]:
    """The alternatives of a schema's type, each once, ``None`` last; ``[Any]`` if one is Any."""
    members = list(dict.fromkeys(_alternatives(schema)))
    if "Any" in members:
        return ["Any"]
    return [kind for kind in members if kind != "None"] + ["None"] * ("None" in members)


def _annotation(schema: Any) -> str:
    return " | ".join(_members(schema))


def _alternatives(schema: Any) -> list[str]:
    """The types a value of ``schema`` may have; ``Any`` for what has no honest equivalent."""
    if not isinstance(schema, Mapping):
        return ["Any"]
    if "$ref" in schema:
        return [_ref_name(schema["$ref"])]
    if "const" in schema:
        return _enum([schema["const"]])
    if "enum" in schema:
        return _enum(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return [kind for branch in schema[key] for kind in _alternatives(branch)]
    if len(schema.get("allOf", ())) == 1:
        return _alternatives(schema["allOf"][0])
    kind = schema.get("type")
    if isinstance(kind, list):
        return [alt for one in kind for alt in _alternatives({**schema, "type": one})]
    if kind == "array":
        return [_array(schema)]
    if kind == "object":
        return [_mapping(schema)]
    return [_PRIMITIVES.get(str(kind), "Any")]


def _enum(values: Sequence[Any]) -> list[str]:
    """``Literal[...]`` of the values, and ``None`` if among them; ``Any`` for a float."""
    if not all(value is None or isinstance(value, str | int | bool) for value in values):
        return ["Any"]
    literals = [_literal(value) for value in values if value is not None]
    return ([f"Literal[{', '.join(literals)}]"] if literals else []) + ["None"] * (None in values)


def _array(schema: Mapping[str, Any]) -> str:
    if "prefixItems" in schema:
        return f"tuple[{', '.join(_annotation(item) for item in schema['prefixItems'])}]"
    return f"list[{_annotation(schema.get('items', {}))}]"


def _mapping(schema: Mapping[str, Any]) -> str:
    """``dict[K, V]``: keys from ``propertyNames``' enum, values from ``additionalProperties``."""
    values = schema.get("additionalProperties")
    value = _annotation(values) if isinstance(values, Mapping) else "Any"
    names = schema.get("propertyNames", {})
    key = _annotation({"enum": names["enum"]}) if "enum" in names else "str"
    return f"dict[{key}, {value}]"


# -- layout: what ``ruff format`` would write ---------------------------------------------------


def _call(
    head: str, arguments: Sequence[str], indent: str, brackets: tuple[str, str] = ("(", ")")
) -> list[str]:
    """``head(arguments)``: on one line, else the arguments on one line, else one per line."""
    (opening, closing), inner, joined = brackets, indent + _INDENT, ", ".join(arguments)
    if len(f"{indent}{head}{opening}{joined}{closing}") <= _LINE_LENGTH:
        return [f"{indent}{head}{opening}{joined}{closing}"]
    if len(inner + joined) <= _LINE_LENGTH:
        return [f"{indent}{head}{opening}", inner + joined, f"{indent}{closing}"]
    items = [f"{inner}{argument}," for argument in arguments]
    return [f"{indent}{head}{opening}", *items, f"{indent}{closing}"]


def _subscript(annotation: str) -> tuple[str, list[str]]:
    """``Literal["a", "b"]`` -> ``("Literal", ['"a"', '"b"'])``, each part as written."""
    node = ast.parse(annotation, mode="eval").body
    if not isinstance(node, ast.Subscript):
        raise ValueError(f"{annotation} is no subscript")
    elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return ast.unparse(node.value), [ast.get_source_segment(annotation, e) or "" for e in elements]


def _union_alias(name: str, members: Sequence[str]) -> list[str]:
    """``name: TypeAlias = A | B``: parenthesised when too long, then one member per line."""
    head, joined = f"{name}: TypeAlias = ", " | ".join(members)
    if len(head + joined) <= _LINE_LENGTH:
        return [head + joined]
    if len(members) == 1 and joined.endswith("]"):  # one generic: split at its brackets
        generic, items = _subscript(joined)
        return _call(head + generic, items, "", ("[", "]"))
    if len(_INDENT + joined) <= _LINE_LENGTH:
        return [f"{head}(", _INDENT + joined, ")"]
    rest = [f"{_INDENT}| {member}" for member in members[1:]]
    return [f"{head}(", _INDENT + members[0], *rest, ")"]


def _wrap(text: str, width: int) -> list[str]:
    """The lines of ``text``, each longer than ``width`` wrapped at its own indentation."""
    lines: list[str] = []
    for line in text.splitlines():
        margin = line[: len(line) - len(line.lstrip())]
        wrapped = textwrap.wrap(
            line, width, subsequent_indent=margin, break_long_words=False, break_on_hyphens=False
        )
        lines += wrapped or [""]
    return lines


def _docstring(text: str, indent: str) -> list[str]:
    """``text`` as a docstring: backslashes and triple quotes escaped, long lines wrapped."""
    escaped = inspect.cleandoc(text).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    # The quotes open the first line and close the last.
    width = _LINE_LENGTH - len(indent) - len('"""')
    lines = _wrap(escaped, width)
    if len(lines) == 1 and len(lines[0]) > width - len('"""'):
        lines = _wrap(escaped, width - len('"""'))  # a single line holds both
    # A quote against the triple quotes would end them: ruff pads it with a space.
    lines[0] = f" {lines[0]}" if lines[0].startswith('"') else lines[0]
    lines[-1] = f"{lines[-1]} " if lines[-1].endswith('"') else lines[-1]
    lines[0] = f'"""{lines[0]}'
    lines[-1] = f'{lines[-1]}"""'  # the same line as the first, for a one-line docstring
    return [f"{indent}{line}" if line else "" for line in lines]


# -- definitions ---------------------------------------------------------------------------------


def _field(wire: str, schema: Mapping[str, Any], required: bool, name: str) -> list[str]:
    """One field: no default when required, else the schema's default (``None`` without one)."""
    members, default = _members(schema), None
    if not required:
        if schema.get("default") is None and "None" not in members and members != ["Any"]:
            members.append("None")  # absent from the wire: read as None
        default = _literal(schema.get("default"))
    if name == wire:
        return _annotated(name, members, default, [])
    # Not ``alias=``: type checkers read it as the constructor's keyword (dataclass_transform),
    # and a Python caller writes ``MatchupStarted(matchup_id=...)``. At run time the two are one.
    aliases = [f"{kind}_alias={_string(wire)}" for kind in ("validation", "serialization")]
    return _annotated(
        name, members, None, ([] if default is None else [f"default={default}"]) + aliases
    )


def _annotated(
    name: str, members: Sequence[str], default: str | None, arguments: Sequence[str]
) -> list[str]:
    """``name: T = default`` or ``name: T = Field(arguments)``; where its first line is too long,
    ``T`` is parenthesised (a union) or split at its brackets (one generic), as ruff does."""
    annotation, lines = " | ".join(members), []
    head = f"{_INDENT}{name}: {annotation}"
    first = head + (" = Field(" if arguments else "" if default is None else f" = {default}")
    if len(first) > _LINE_LENGTH and len(members) > 1:
        lines, head = [f"{_INDENT}{name}: (", f"{_INDENT * 2}{annotation}"], f"{_INDENT})"
    elif len(first) > _LINE_LENGTH and annotation.endswith("]"):
        generic, _, inner = annotation[:-1].partition("[")
        lines, head = [f"{_INDENT}{name}: {generic}[", f"{_INDENT * 2}{inner}"], f"{_INDENT}]"
    if arguments:
        return lines + _call(f"{head.strip()} = Field", arguments, _INDENT)
    return [*lines, head + ("" if default is None else f" = {default}")]


def _class(name: str, schema: Mapping[str, Any]) -> list[str]:
    """``class name(_Model)``: the schema's description as its docstring, then its fields."""
    description = inspect.cleandoc(schema.get("description") or "")
    docstring = [*_docstring(description, _INDENT), ""] if description else []
    required, taken = set(schema.get("required", ())), set[str]()
    fields = [
        line
        for wire, field in schema["properties"].items()
        for line in _field(wire, field, wire in required, _field_name(wire, taken))
    ]
    body = docstring + fields if fields else docstring[:-1] or [f"{_INDENT}pass"]
    return [f"class {name}(_Model):", *body]


def _alias(name: str, schema: Mapping[str, Any]) -> list[str]:
    """A type alias for a schema that is no object with properties, its description a comment."""
    description = inspect.cleandoc(schema.get("description") or "")
    comment = _wrap(description, _LINE_LENGTH - len("#: ")) if description else []
    return [f"#: {line}".rstrip() for line in comment] + _union_alias(name, _members(schema))


def _dependencies_first(aliases: Sequence[str], schemas: Mapping[str, Any]) -> list[str]:
    """The aliases in order, each after those its type names: an alias is evaluated at import."""
    types = {name: _annotation(schemas[name]) for name in aliases}
    ordered: list[str] = []

    def place(name: str, seen: frozenset[str]) -> None:
        for other in aliases:
            if other not in seen and re.search(rf"\b{other}\b", types[name]):
                place(other, seen | {other})
        if name not in ordered:
            ordered.append(name)

    for name in aliases:
        place(name, frozenset({name}))
    return ordered


def _native_events(union: Mapping[str, Any]) -> dict[str, str]:
    """Event name -> model name, in the union's order, from each frame's ``event`` and ``data``."""
    events: dict[str, str] = {}
    for frame in union["oneOf"]:
        properties = frame["properties"]
        events[properties["event"]["const"]] = _ref_name(
            properties["data"]["contentSchema"]["$ref"]
        )
    return events


def _header(version: str, public: Iterable[str], typing_names: Sequence[str]) -> list[str]:
    """The module docstring, imports, ``__all__``, ``SERVER_VERSION`` and the base model."""
    return [
        f'"""The arena\'s wire models, generated from its OpenAPI document (version {version}).',
        "",
        "Generated by ``arena_client._codegen``: do not edit by hand. Regenerate it with",
        "``python -m arena_client._codegen --from-server`` (or a server's ``/openapi.json``).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        f"from typing import {', '.join(typing_names)}",
        "",
        "from pydantic import BaseModel, ConfigDict, Field",
        "",
        "__all__ = [",
        *(f"{_INDENT}{_string(name)}," for name in sorted(public)),
        "]",
        "",
        f"SERVER_VERSION = {_string(version)}",
        "",
        "",
        "class _Model(BaseModel):",
        f'{_INDENT}"""Base of every model: fields by name or alias; unknown wire keys are kept."""',
        "",
        f"{_INDENT}model_config = ConfigDict("
        'populate_by_name=True, extra="allow", protected_namespaces=())',
    ]


def generate(document: Mapping[str, Any]) -> str:
    """The source of ``arena_client/models.py`` for an OpenAPI document.

    Raises:
        ValueError: a schema's name is no Python identifier, or there is no ``NativeSseEvent``.
    """
    schemas: Mapping[str, Any] = document["components"]["schemas"]
    if _NATIVE_UNION not in schemas:
        raise ValueError(f"the document has no {_NATIVE_UNION} schema")
    bodies = {name: schemas[name] for name in sorted(schemas) if not name.endswith(_FRAMING_SUFFIX)}
    for name in bodies:
        if not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"schema {name!r} is no Python identifier")
    classes = [name for name, schema in bodies.items() if "properties" in schema]
    aliases = [name for name in bodies if name not in classes]
    events = _native_events(schemas[_NATIVE_UNION])

    lines: list[str] = []
    for name in classes:
        lines += ["", "", *_class(name, bodies[name])]
    # Aliases and the events table come last: evaluated at import, they may name any class.
    tail = [_alias(name, bodies[name]) for name in _dependencies_first(aliases, bodies)]
    tail.append(_union_alias("NativeEvent", list(events.values())))
    table = [f"{_INDENT}{_string(event)}: {model}," for event, model in events.items()]
    tail.append(["NATIVE_EVENTS: dict[str, type[_Model]] = {", *table, "}"])
    lines += ["", "", *tail[0]]
    for block in tail[1:]:
        lines += ["", *block]

    types = [
        _annotation(field) for name in classes for field in bodies[name]["properties"].values()
    ]
    types += [_annotation(bodies[name]) for name in aliases]
    typing_names = [
        name for name in ("Any", "Literal") if re.search(rf"\b{name}\b", " ".join(types))
    ]
    public = [*classes, *aliases, "NATIVE_EVENTS", "NativeEvent", "SERVER_VERSION"]
    header = _header(str(document["info"]["version"]), public, [*typing_names, "TypeAlias"])
    return "\n".join(header + lines) + "\n"


# -- command line --------------------------------------------------------------------------------


def load(source: str) -> dict[str, Any]:
    """The OpenAPI document at a URL (``http(s)://``) or in a file."""
    if source.startswith(("http://", "https://")):
        import httpx  # only for a URL: reading a file needs nothing beyond the stdlib

        response = httpx.get(source, follow_redirects=True, timeout=30)
        response.raise_for_status()
        document: dict[str, Any] = response.json()
        return document
    loaded: dict[str, Any] = json.loads(Path(source).read_text(encoding="utf-8"))
    return loaded


def server_document() -> dict[str, Any]:
    """The document a server of the importable ``arena_api`` serves, built in-process with the
    version that server reports (its installed distribution's)."""
    from arena_api.openapi import document_bytes
    from arena_api.services.container import package_version

    document: dict[str, Any] = json.loads(document_bytes(package_version()))
    return document


def main(argv: Sequence[str] | None = None) -> int:
    """Write ``models.py`` from a URL, a file, or the in-process server (``--from-server``)."""
    parser = argparse.ArgumentParser(
        prog="python -m arena_client._codegen", description="Write arena_client/models.py."
    )
    parser.add_argument("source", nargs="?", help="the document's URL, or a file holding it")
    parser.add_argument(
        "--from-server", action="store_true", help="build the document in-process with arena_api"
    )
    parser.add_argument(
        "-o", "--output", type=Path, default=DEFAULT_OUTPUT, help="the file to write"
    )
    args = parser.parse_args(argv)
    if (args.source is None) != args.from_server:
        parser.error("give either SOURCE or --from-server")

    document = server_document() if args.from_server else load(args.source)
    args.output.write_text(generate(document), encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
