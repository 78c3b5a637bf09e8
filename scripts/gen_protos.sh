#!/usr/bin/env bash
# Regenerates src/ridgeline/format/proto/*_pb2.py(i) from the .proto files beside them.
# The generated files are committed, so users never run this. grpcio-tools is pinned to 1.71.0 because the
# protoc inside it emits code for protobuf 5.29, and generated code needs a runtime at least as new as itself:
# an older protoc keeps `protobuf>=5.29` in pyproject.toml true. It runs in a throwaway venv so the pin never
# touches the project's own environment.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${TMPDIR:-/tmp}/ridgeline-protoc-venv"
[ -x "$venv/bin/python" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q "grpcio-tools==1.71.0"; }
cd "$here/src"
rm -f ridgeline/format/proto/*_pb2.py ridgeline/format/proto/*_pb2.pyi
"$venv/bin/python" -m grpc_tools.protoc -I . --python_out=. --pyi_out=. ridgeline/format/proto/*.proto
