"""The OpenAPI 3.1 document of the HTTP API, generated from the compiled descriptors of
``protos/gamestrategy.proto`` (the one source of the API).

Each unary RPC is ``POST /v1/<Method>``; its request and reply bodies follow the protobuf JSON mapping
(https://protobuf.dev/programming-guides/json/) as ``server.http_api`` reads and writes them with
``google.protobuf.json_format``: lowerCamelCase names, 64-bit integers as decimal strings (a number also
accepted in a request), enums by name (their number also accepted in a request), ``NaN`` / ``Infinity`` as
strings, maps as objects, a oneof as at most one of its fields. A reply writes every field without presence,
so the fields of a message that appears only in replies are ``required``; a request may leave any field out,
and names no field the message lacks (``additionalProperties: false``). Errors are ``{code, status, message}``
with the HTTP status of the gRPC code (``server.http_api.HTTP_STATUS``).

``python -m server.openapi`` writes the committed copy, ``protos/openapi.json``; ``--check`` fails when it drifted
(``make openapi`` / ``make check-openapi``). The server answers the same document at ``GET /openapi.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import grpc
from google.protobuf.descriptor import FieldDescriptor

from protos import gamestrategy_pb2 as pb
from server.http_api import HTTP_STATUS, STREAMING, UNARY

PROTO = Path(pb.__file__).resolve().parent / "gamestrategy.proto"
COMMITTED = Path(pb.__file__).resolve().parent / "openapi.json"
_SERVICE = pb.DESCRIPTOR.services_by_name["GameStrategy"]
_PACKAGE = pb.DESCRIPTOR.package
_T = FieldDescriptor
_INT32 = {_T.TYPE_INT32: (-2**31, 2**31 - 1), _T.TYPE_SINT32: (-2**31, 2**31 - 1), _T.TYPE_SFIXED32: (-2**31, 2**31 - 1),
          _T.TYPE_UINT32: (0, 2**32 - 1), _T.TYPE_FIXED32: (0, 2**32 - 1)}
_INT64 = {_T.TYPE_INT64: True, _T.TYPE_SINT64: True, _T.TYPE_SFIXED64: True,
          _T.TYPE_UINT64: False, _T.TYPE_FIXED64: False}  # -> signed
ERROR_SCHEMA = "Error"
BODY_TOO_LARGE = 413  # RESOURCE_EXHAUSTED for a body past the message limit (server.http_api.HttpApi.rpc)


def schema_name(descriptor) -> str:
    """A component name from a message's or enum's full name, without the package: ``JottoState.Role``."""
    return descriptor.full_name.removeprefix(_PACKAGE + ".")


def _ref(descriptor) -> dict:
    return {"$ref": f"#/components/schemas/{schema_name(descriptor)}"}


def scalar_schema(field) -> dict:
    """The JSON schema of one value of a non-message field."""
    t = field.type
    if t in _INT32:
        lo, hi = _INT32[t]
        return {"type": "integer", "minimum": lo, "maximum": hi}
    if t in _INT64:
        pattern = r"^-?[0-9]+$" if _INT64[t] else r"^[0-9]+$"
        bounds = (-2**63, 2**63 - 1) if _INT64[t] else (0, 2**64 - 1)
        return {"oneOf": [{"type": "string", "pattern": pattern},
                          {"type": "integer", "minimum": bounds[0], "maximum": bounds[1]}],
                "description": "a 64-bit integer: a decimal string in replies; a string or a number in requests"}
    if t in (_T.TYPE_DOUBLE, _T.TYPE_FLOAT):
        return {"oneOf": [{"type": "number"}, {"type": "string", "enum": ["NaN", "Infinity", "-Infinity"]}]}
    if t == _T.TYPE_BOOL:
        return {"type": "boolean"}
    if t == _T.TYPE_STRING:
        return {"type": "string"}
    if t == _T.TYPE_BYTES:
        return {"type": "string", "contentEncoding": "base64"}
    if t == _T.TYPE_ENUM:
        return _ref(field.enum_type)
    if t == _T.TYPE_MESSAGE:
        return _ref(field.message_type)
    raise ValueError(f"field {field.full_name} has a type the generator does not map ({t})")


def field_schema(field) -> dict:
    if field.type == _T.TYPE_MESSAGE and field.message_type.GetOptions().map_entry:
        value = field.message_type.fields_by_name["value"]
        return {"type": "object", "additionalProperties": scalar_schema(value)}
    if field.is_repeated:
        return {"type": "array", "items": scalar_schema(field)}
    return scalar_schema(field)


def _with_description(schema: dict, text: str) -> dict:
    return {**schema, "description": text} if text else schema  # beside a $ref too: OpenAPI 3.1 allows it


def message_schema(message, comments: dict, in_reply_only: bool) -> dict:
    """A message's object schema. Where the message can be in a request, every field may also be ``null``
    (the JSON mapping reads null as the field's default) and no other field name is accepted."""
    props = {}
    for f in message.fields:
        schema = field_schema(f)
        if not in_reply_only:
            schema = {"anyOf": [schema, {"type": "null"}]}
        props[f.json_name] = _with_description(schema, comments.get(f.full_name, ""))
    schema: dict = {"type": "object", "properties": props}
    if comments.get(message.full_name):
        schema["description"] = comments[message.full_name]
    if in_reply_only:
        # every field without presence is written out (always_print_fields_with_no_presence)
        schema["required"] = [f.json_name for f in message.fields if not f.has_presence]
    else:
        schema["additionalProperties"] = False
    oneofs = [o for o in message.oneofs if len(o.fields) > 1]
    if oneofs:
        set_ = {"not": {"type": "null"}}
        pairs = [{"required": [a.json_name, b.json_name], "properties": {a.json_name: set_, b.json_name: set_}}
                 for o in oneofs for i, a in enumerate(o.fields) for b in o.fields[i + 1:]]
        schema["not"] = {"anyOf": pairs}
        names = "; ".join(f"{o.name}: one of {', '.join(f.json_name for f in o.fields)}" for o in oneofs)
        schema["description"] = (schema.get("description", "") +
                                 f" At most one field of each oneof is set, not null ({names}).").strip()
    return schema


def enum_schema(enum, comments: dict) -> dict:
    """By name; proto3 enums are open, so a number (any int32) is read too, and a number no name has is
    written back as that number."""
    lo, hi = _INT32[_T.TYPE_INT32]
    return {"oneOf": [{"type": "string", "enum": [v.name for v in enum.values]},
                      {"type": "integer", "minimum": lo, "maximum": hi}],
            "description": (comments.get(enum.full_name, "") + " By name; a request may also give a number "
                            f"({', '.join(f'{v.name} = {v.number}' for v in enum.values)}).").strip()}


def reachable(roots) -> dict:
    """Message and enum descriptors reachable from ``roots`` (messages), by full name."""
    seen: dict = {}
    todo = list(roots)
    while todo:
        d = todo.pop()
        if d.full_name in seen:
            continue
        seen[d.full_name] = d
        for f in getattr(d, "fields", ()):
            if f.type == _T.TYPE_MESSAGE:
                todo.append(f.message_type)
            elif f.type == _T.TYPE_ENUM:
                todo.append(f.enum_type)
    return seen


def proto_comments(proto: Path = PROTO) -> dict:
    """The comments of the proto's messages, fields, enums and methods by full name (leading comment, else
    trailing), read from a descriptor set with source info that the pinned protoc writes (the compiled
    ``gamestrategy_pb2`` carries none)."""
    import tempfile

    from google.protobuf import descriptor_pb2
    from grpc_tools import protoc

    root = proto.parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        rc = protoc.main(["protoc", f"-I{root}", "--include_source_info", f"--descriptor_set_out={out}",
                          str(proto.relative_to(root))])
        if rc != 0:
            raise RuntimeError(f"protoc could not read {proto} (exit {rc})")
        files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    (file,) = files.file
    names = _paths_to_names(file)
    out = {}
    for loc in file.source_code_info.location:
        name = names.get(tuple(loc.path))
        text = (loc.leading_comments or loc.trailing_comments).strip()
        if name and text:
            out[name] = " ".join(line.strip() for line in text.splitlines())
    return out


def _paths_to_names(file) -> dict:
    """Source-info paths (descriptor.proto's field numbers) -> full names."""
    names: dict = {}

    def message(m, path, prefix):
        full = f"{prefix}.{m.name}"
        names[path] = full
        for i, f in enumerate(m.field):
            names[path + (2, i)] = f"{full}.{f.name}"
        for i, n in enumerate(m.nested_type):
            message(n, path + (3, i), full)
        for i, e in enumerate(m.enum_type):
            enum(e, path + (4, i), full)

    def enum(e, path, prefix):
        full = f"{prefix}.{e.name}"
        names[path] = full
        for i, v in enumerate(e.value):
            names[path + (2, i)] = f"{prefix}.{v.name}"  # enum values are scoped beside their enum

    for i, m in enumerate(file.message_type):
        message(m, (4, i), file.package)
    for i, e in enumerate(file.enum_type):
        enum(e, (5, i), file.package)
    for i, s in enumerate(file.service):
        names[(6, i)] = f"{file.package}.{s.name}"
        for j, m in enumerate(s.method):
            names[(6, i, 2, j)] = f"{file.package}.{s.name}.{m.name}"
    return names


def error_responses() -> dict:
    """HTTP status -> the response object of the errors answered with it."""
    by_status: dict = {}
    for code, status in HTTP_STATUS.items():
        if code is not grpc.StatusCode.OK:
            by_status.setdefault(status, []).append(code.name)
    by_status.setdefault(BODY_TOO_LARGE, []).append(
        f"{grpc.StatusCode.RESOURCE_EXHAUSTED.name} (a request body past the message limit)")
    return {str(status): {"description": "gRPC " + ", ".join(codes),
                          "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ERROR_SCHEMA}"}}}}
            for status, codes in sorted(by_status.items())}


def document(comments: dict | None = None) -> dict:
    """The OpenAPI 3.1 document (``comments``: :func:`proto_comments`, read when not given)."""
    comments = proto_comments() if comments is None else comments
    requests = [UNARY[m][0].DESCRIPTOR for m in sorted(UNARY)]
    replies = [UNARY[m][1].DESCRIPTOR for m in sorted(UNARY)]
    in_requests, in_replies = reachable(requests), reachable(replies)
    schemas: dict = {}
    for full, d in sorted({**in_requests, **in_replies}.items()):
        if hasattr(d, "values"):
            schemas[schema_name(d)] = enum_schema(d, comments)
        elif not d.GetOptions().map_entry:
            schemas[schema_name(d)] = message_schema(d, comments, in_reply_only=full not in in_requests)
    schemas[ERROR_SCHEMA] = {
        "type": "object", "required": ["code", "status", "message"],
        "properties": {"code": {"type": "integer", "description": "the gRPC status code (google.rpc.Code)"},
                       "status": {"type": "string", "enum": [c.name for c in grpc.StatusCode if c is not grpc.StatusCode.OK],
                                  "description": "the code's name"},
                       "message": {"type": "string", "description": "the fault, for people"}},
        "description": "Every HTTP error: the gRPC status the same call over gRPC would end with."}
    errors = error_responses()
    paths = {f"/v1/{m.name}": {"post": _operation(m, comments, errors)} for m in _SERVICE.methods if m.name in UNARY}
    paths.update(_probes())
    service = f"{_PACKAGE}.{_SERVICE.name}"
    return {
        "openapi": "3.1.0",
        "info": {"title": "gamestrategy HTTP/JSON API", "version": _PACKAGE.rsplit(".", 1)[-1],
                 "description": (comments.get(service, "") + " Generated from protos/gamestrategy.proto "
                                 "(python -m server.openapi). Every unary RPC of " + service + " is POST /v1/<Method> "
                                 "with the protobuf JSON mapping of its request (a request may also name a field by its proto name, "
                                 "game_seed for gameSeed); the streaming "
                                 + ", ".join(STREAMING) + " is gRPC only.").strip()},
        "servers": [{"url": "http://127.0.0.1:8080", "description": "make serve's HTTP port"}],
        "security": [{"bearerAuth": []}, {}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearerAuth": {
                "type": "http", "scheme": "bearer",
                "description": "Required when the server runs with tokens (--token-file, GAMESTRATEGY_TOKEN); "
                               "never accepted over plain HTTP while TLS is on."}},
            "parameters": {"grpcTimeout": {
                "name": "grpc-timeout", "in": "header", "required": False,
                "description": "the call's deadline in gRPC's format: at most 8 digits and a unit (H, M, S, m, u, n)",
                "schema": {"type": "string", "pattern": r"^[0-9]{1,8}[HMSmun]$"}}},
        },
    }


def _operation(method, comments: dict, errors: dict) -> dict:
    req, reply = UNARY[method.name]
    return {
        "operationId": method.name,
        "summary": comments.get(method.full_name, method.name),
        "parameters": [{"$ref": "#/components/parameters/grpcTimeout"}],
        "requestBody": {"required": False, "description": "an empty body is the empty request",
                        "content": {"application/json": {"schema": _ref(req.DESCRIPTOR)}}},
        "responses": {"200": {"description": "the reply",
                              "content": {"application/json": {"schema": _ref(reply.DESCRIPTOR)}}}, **errors},
    }


def _probes() -> dict:
    status = {"type": "string", "enum": ["SERVING", "NOT_SERVING"]}
    building = {"type": "array", "items": {"type": "object"},
                "description": "stores a build beside the server is still making"}
    refused = {"type": "array", "description": "store versions that failed their check and unreadable entries of "
               "the store root, with the reason", "items": {
                   "type": "object", "required": ["variant", "version", "reason"],
                   "properties": {"variant": {"type": "string"}, "version": {"type": ["string", "null"]},
                                  "reason": {"type": "string"}}}}
    return {
        "/healthz": {"get": {"operationId": "healthz", "summary": "Liveness: the process answers HTTP.", "security": [],
                             "responses": {"200": {"description": "alive", "content": {"application/json": {"schema": {
                                 "type": "object", "required": ["status"], "properties": {"status": status}}}}}}}},
        "/readyz": {"get": {"operationId": "readyz", "security": [],
                            "summary": "Readiness: 200 while stores are loaded and the process is not stopping, else 503.",
                            "responses": {
                                "200": {"description": "ready", "content": {"application/json": {"schema": {
                                    "type": "object", "required": ["status", "variants", "building", "refused"],
                                    "properties": {"status": status, "variants": {"type": "integer"},
                                                   "building": building, "refused": refused}}}}},
                                "503": {"description": "not ready: no store loaded, or stopping",
                                        "content": {"application/json": {"schema": {
                                            "type": "object", "required": ["status", "message", "building", "refused"],
                                            "properties": {"status": status, "message": {"type": "string"},
                                                           "building": building, "refused": refused}}}}}}}},
        "/openapi.json": {"get": {"operationId": "openapi", "security": [], "summary": "This document.",
                                  "responses": {"200": {"description": "the OpenAPI document",
                                                        "content": {"application/json": {"schema": {"type": "object"}}}}}}},
    }


def render(doc: dict) -> str:
    return json.dumps(doc, indent=1, sort_keys=False) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m server.openapi", description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path, nargs="?", default=COMMITTED, help=f"the document's file (default {COMMITTED})")
    ap.add_argument("--check", action="store_true", help="fail (exit 1) when the file differs from the proto's document")
    args = ap.parse_args(argv)
    text = render(document())
    shown = os.path.relpath(args.path)
    if args.check:
        if not args.path.exists() or args.path.read_text() != text:
            print(f"OpenAPI document drifted: {shown} (run make openapi)", file=sys.stderr)
            return 1
        print(f"{shown} matches protos/gamestrategy.proto")
        return 0
    args.path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
