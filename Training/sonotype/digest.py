"""A short digest of source files: which version of some code made a cached result."""

import hashlib


def files_digest(paths):
    """16 hex digits over the contents of `paths`, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:16]
