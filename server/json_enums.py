"""Strict enum values for request bodies in the protobuf JSON mapping.

``google.protobuf.json_format.ParseDict`` reads an enum from anything ``int()`` takes: ``true`` as 1, ``2.5``
as 2, the string ``"2"`` as 2. The JSON mapping (https://protobuf.dev/programming-guides/json/) names an
enum by its name or its integer number; a body that gives anything else is refused, naming the field,
rather than read as some other value.
"""
from __future__ import annotations

from google.protobuf.descriptor import FieldDescriptor


def enum_fault(body, descriptor, path: str = "") -> str | None:
    """The first enum field of ``body`` (a JSON object of message ``descriptor``) whose value is neither one
    of its names nor an integer, as a sentence; None when every enum value is one."""
    if not isinstance(body, dict):
        return None
    fields = {**{f.name: f for f in descriptor.fields}, **{f.json_name: f for f in descriptor.fields}}
    for key, value in body.items():
        field = fields.get(key)
        if field is None or value is None:
            continue  # ParseDict names an unknown field; null is the default
        where = f"{path}{key}"
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry:
                value_field = field.message_type.fields_by_name["value"]
                items = value.values() if isinstance(value, dict) else ()
                fault = _first(_value_fault(v, value_field, f"{where}.") for v in items)
            elif field.is_repeated:
                fault = _first(enum_fault(v, field.message_type, f"{where}[{i}].")
                               for i, v in enumerate(value if isinstance(value, list) else ()))
            else:
                fault = enum_fault(value, field.message_type, f"{where}.")
        elif field.type == FieldDescriptor.TYPE_ENUM:
            values = value if field.is_repeated and isinstance(value, list) else [value]
            fault = _first(_value_fault(v, field, where) for v in values)
        else:
            fault = None
        if fault:
            return fault
    return None


def _value_fault(value, field, where: str) -> str | None:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return enum_fault(value, field.message_type, where)
    if field.type != FieldDescriptor.TYPE_ENUM or value is None:
        return None
    enum = field.enum_type
    if isinstance(value, str) and value in enum.values_by_name:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return None
    return (f"{where.rstrip('.')} is {value!r}, not a {enum.name} (one of {', '.join(enum.values_by_name)}, "
            "or an integer)")


def _first(faults) -> str | None:
    return next((f for f in faults if f), None)
