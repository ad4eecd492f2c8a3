"""mkdocs hook: the API's OpenAPI document, protos/openapi.json (generated from the proto), published in the
site as openapi.json, where docs/api.md's Swagger UI reads it."""
from pathlib import Path

from mkdocs.structure.files import File

DOCUMENT = Path(__file__).resolve().parents[2] / "protos" / "openapi.json"


def on_files(files, config):
    files.append(File.generated(config, "openapi.json", abs_src_path=str(DOCUMENT)))
    return files
