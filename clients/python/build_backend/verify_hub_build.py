"""A PEP 517 build backend in the standard library alone.

The package has no dependencies, and the machines it is built and tested on reach no Python package
index: pip's usual backend (setuptools) would have to be downloaded into pip's isolated build
environment, or needs `wheel` installed beside it. This backend needs neither. It builds a pure-Python
wheel of `src/verify_hub` and an sdist, with the metadata taken from pyproject.toml's [project] table.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "verify_hub"


def _project() -> dict:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = text.split("[project]", 1)[1].split("\n[", 1)[0]

    def field(name: str) -> str:
        match = re.search(rf'^{name}\s*=\s*"([^"]*)"', table, re.MULTILINE)
        if not match:
            raise ValueError(f"pyproject.toml: [project] {name} is missing")
        return match.group(1)

    return {"name": field("name"), "version": field("version"), "summary": field("description"), "requires_python": field("requires-python")}


def _dist_name(project: dict) -> str:
    return f"{re.sub(r'[-_.]+', '_', project['name'])}-{project['version']}"


def _metadata(project: dict) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {project['name']}\n"
        f"Version: {project['version']}\n"
        f"Summary: {project['summary']}\n"
        "License: MIT\n"
        "License-File: LICENSE\n"
        f"Requires-Python: {project['requires_python']}\n"
        "Classifier: Programming Language :: Python :: 3\n"
        "Classifier: Typing :: Typed\n"
        "Description-Content-Type: text/markdown\n\n"
        f"{readme}"
    )


def _package_files() -> list[Path]:
    source = ROOT / "src" / PACKAGE
    return sorted(p for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings=None) -> list[str]:
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    project = _project()
    dist = _dist_name(project)
    filename = f"{dist}-py3-none-any.whl"
    info = f"{dist}.dist-info"
    entries: list[tuple[str, bytes]] = [
        (f"{PACKAGE}/{path.relative_to(ROOT / 'src' / PACKAGE).as_posix()}", path.read_bytes()) for path in _package_files()
    ]
    entries.append((f"{info}/METADATA", _metadata(project).encode("utf-8")))
    entries.append((f"{info}/licenses/LICENSE", (ROOT / "LICENSE").read_bytes()))
    entries.append((f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: verify_hub_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    record = io.StringIO()
    for name, data in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
        record.write(f"{name},sha256={digest},{len(data)}\n")
    record.write(f"{info}/RECORD,,\n")
    entries.append((f"{info}/RECORD", record.getvalue().encode("utf-8")))
    with zipfile.ZipFile(Path(wheel_directory) / filename, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        for name, data in entries:
            wheel.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data)
    return filename


def build_sdist(sdist_directory, config_settings=None) -> str:
    project = _project()
    dist = _dist_name(project)
    filename = f"{dist}.tar.gz"
    # CHANGELOG.md appears with the first release (npm run release:version writes it).
    extras = [path for path in (ROOT / "LICENSE", ROOT / "CHANGELOG.md") if path.exists()]
    files = [ROOT / "pyproject.toml", ROOT / "README.md", *extras, Path(__file__).resolve(), *_package_files()]
    with tarfile.open(Path(sdist_directory) / filename, "w:gz") as sdist:
        for path in files:
            sdist.add(path, arcname=f"{dist}/{path.relative_to(ROOT).as_posix()}")
        pkg_info = _metadata(project).encode("utf-8")
        member = tarfile.TarInfo(f"{dist}/PKG-INFO")
        member.size = len(pkg_info)
        sdist.addfile(member, io.BytesIO(pkg_info))
    return filename
