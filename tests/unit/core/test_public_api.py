"""The public API: what ``fleet_memory`` exports, and nothing loaded at import."""

import subprocess
import sys
import types

import fleet_memory

_LAZY = {"FleetMemory", "TemporalSemanticMemory"}  # resolved on first use by the module's __getattr__
_NOT_API = {"annotations", "TYPE_CHECKING", "Any"}


def test_all_public_names_are_exported_sorted():
    public = {
        name for name, value in vars(fleet_memory).items()
        if not name.startswith("_") and name not in _NOT_API and not isinstance(value, types.ModuleType)
    }
    assert fleet_memory.__all__ == sorted(public | _LAZY, key=str.casefold)


def test_exported_names_resolve():
    for name in fleet_memory.__all__:
        assert getattr(fleet_memory, name) is not None, name


def test_seed_name_is_the_facade():
    assert fleet_memory.TemporalSemanticMemory is fleet_memory.FleetMemory


def test_the_facade_keeps_its_types():
    hints = {name: fn.__annotations__.get("return") for name, fn in vars(fleet_memory.FleetMemory).items()
             if callable(fn) and not name.startswith("_")}
    assert not [name for name, ret in hints.items() if ret in ("Any", "list[Any]", "Iterator[Any]")
                or (isinstance(ret, str) and "Any]" in ret and not ret.startswith("dict"))]


def test_import_loads_no_model_driver_or_torch():
    code = ("import sys, fleet_memory; heavy = {'torch', 'spacy', 'psycopg', 'sentence_transformers', 'numpy'};"
            " print(sorted(heavy & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
