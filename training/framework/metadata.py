"""What a run's ``metadata.json`` says about where and how it ran: versions, commit, command."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import datetime, timezone
from importlib import metadata as package_metadata

from training.framework.console import command_line
from training.framework.paths import source_root

PACKAGES = ("numpy", "torch", "gymnasium", "pettingzoo", "stable-baselines3", "sb3-contrib", "tabletop-dice-rl")


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = package_metadata.version(name)
        except package_metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def git_commit() -> str | None:
    """The commit of the source checkout the code runs from; None for an installed wheel."""
    root = source_root()
    if root is None:
        return None
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def environment() -> dict:
    """The facts every run records at the start of each session."""
    return {
        "packages": package_versions(),
        "git_commit": git_commit(),
        "cpu_count": os.cpu_count(),
        "command": command_line(),
    }
