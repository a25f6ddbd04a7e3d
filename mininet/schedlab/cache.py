"""cache.py - the cache key of a run: what it measured, and with what code.

key = sha256 of the canonical JSON (sorted keys, no spaces, Python's
shortest round-trip float repr, NaN refused) of

  {"params": the point's parameters, "code": code_state()'s "tree" and
   "dirty_hash"}

so a result is reused only when the same experiment ran on the same code.
params must name every input that changes a result (REQUIRED_PARAMS; the
caller may add more).  1 and 1.0 are different JSON and give different
keys: callers pass each parameter with one type.

The code is the tracked content of CODE_PATHS (or of the paths a sweep
passes: BASE_PATHS and closure()'s files, so that editing one paper's
scripts does not re-key another paper's runs) at HEAD minus EXCLUDE and
minus every file ending in EXCLUDE_SUFFIXES (Markdown: the READMEs beside
the sources): what builds the binary and runs the experiment, without the
committed results or the prose, so a commit that only adds results or
edits documentation changes no key.  Uncommitted changes
in those paths (modified, staged, deleted or untracked, not ignored)
make the state dirty: their diff and the untracked files' contents are
hashed into the key and flagged, so a run of unsaved code is never
mistaken for one of the commit.
"""
import ast
import hashlib
import json
import os
import subprocess

CODE_PATHS = ("CMakeLists.txt", "src", "include", "mininet", "scripts/reproduce.sh")
BASE_PATHS = ("CMakeLists.txt", "src", "include", "scripts/reproduce.sh")
EXCLUDE = ("mininet/results",)
EXCLUDE_SUFFIXES = (".md",)   # read by people, never by the build or a run
REQUIRED_PARAMS = ("sched", "sched_group", "capacity", "ef", "duration_s", "warmup_s",
                   "flows", "delay", "seed", "tools")


def canonical_json(obj):
    """The one text of obj: sorted keys, compact, exact floats; TypeError or
    ValueError for what JSON cannot hold exactly (sets, NaN, infinity)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, allow_nan=False)


def _git(repo, *args, binary=False):
    r = subprocess.run(["git", "-C", repo] + list(args), capture_output=True)
    if r.returncode != 0:
        raise RuntimeError("cache: git %s in %s failed: %s"
                           % (" ".join(args), repo, r.stderr.decode(errors="replace").strip()))
    return r.stdout if binary else r.stdout.decode()


def _excluded(path, exclude):
    return (path.endswith(EXCLUDE_SUFFIXES)
            or any(path == e or path.startswith(e + "/") for e in exclude))


def _status_entries(status):
    """[(XY, path)] from `git status --porcelain -z`: a rename or copy
    (X or Y R/C) is followed by its source path, which is skipped."""
    fields = [f.decode(errors="replace") for f in status.split(b"\0")]
    out, i = [], 0
    while i < len(fields):
        f = fields[i]
        i += 1
        if len(f) < 4:
            continue
        out.append((f[:2], f[3:]))
        if "R" in f[:2] or "C" in f[:2]:
            i += 1
    return out


def _pathspec(paths, exclude):
    return (["--"] + list(paths) + [":(exclude)%s" % e for e in exclude]
            + [":(exclude,glob)**/*%s" % s for s in EXCLUDE_SUFFIXES])


def code_state(repo, paths=CODE_PATHS, exclude=EXCLUDE):
    """The code a run used, from git in `repo`.

    Returns {"commit": HEAD, "tree": sha256 of `git ls-tree -r HEAD` over
    the paths (mode, blob id, path of every file), "dirty": bool,
    "dirty_files": [paths], "dirty_hash": sha256 of the diff against HEAD
    and of the untracked files (None when clean)}.  RuntimeError when
    repo is not a git work tree."""
    repo = _git(repo, "rev-parse", "--show-toplevel").strip()   # paths are from the top
    spec = _pathspec(paths, exclude)
    commit = _git(repo, "rev-parse", "HEAD").strip()
    # ls-tree knows no exclude pathspec: filter its -z records here
    listing = _git(repo, "ls-tree", "-r", "-z", "HEAD", "--", *paths, binary=True)
    kept = [e for e in listing.split(b"\0") if e and not _excluded(
        e.split(b"\t", 1)[1].decode(errors="replace"), exclude)]
    tree = hashlib.sha256(b"\0".join(kept)).hexdigest()
    status = _git(repo, "status", "--porcelain", "-z", "--untracked-files=all",
                  *spec, binary=True)
    entries = _status_entries(status)
    dirty_files = sorted(p for _, p in entries)
    untracked = sorted(p for xy, p in entries if xy == "??")
    dirty_hash = None
    if entries:
        h = hashlib.sha256()
        h.update(_git(repo, "diff", "HEAD", "--binary", *spec, binary=True))
        for p in untracked:
            h.update(b"\0untracked\0" + p.encode() + b"\0")
            with open(os.path.join(repo, p), "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
        dirty_hash = h.hexdigest()
    return {"commit": commit, "tree": tree, "dirty": bool(entries),
            "dirty_files": dirty_files, "dirty_hash": dirty_hash}


def _module_file(pydir, name):
    """The file under pydir of a dotted module name, or None (not ours)."""
    parts = name.split(".")
    for cand in (os.path.join(pydir, *parts) + ".py",
                 os.path.join(pydir, *parts, "__init__.py")):
        if os.path.isfile(cand):
            return cand
    return None


def _refs(path, pydir):
    """The files under pydir that the Python file at path needs: what it
    imports (anywhere in it, functions included: `import a.b`, `from a
    import b`, `from a.b import c`, `from . import d`, each package's
    __init__ too) and every script it names in a string ("websess.py":
    the tools a run starts as processes)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    names = set()                        # (directory searched, dotted name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((pydir, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            where = pydir
            if node.level:                   # from . import x, from ..a import b
                where = os.path.dirname(path)
                for _ in range(node.level - 1):
                    where = os.path.dirname(where)
            mod = node.module or ""
            if mod:
                names.add((where, mod))
            names.update((where, (mod + "." if mod else "") + a.name) for a in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.endswith(".py") and "/" not in node.value:
            cand = os.path.join(pydir, node.value)
            if os.path.isfile(cand):
                yield cand
    for where, name in names:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):      # a.b.c: a, a.b (packages), a.b.c
            f = _module_file(where, ".".join(parts[:i]))
            if f:
                yield f


def closure(repo, entries, pydir="mininet"):
    """The repository-relative paths of the Python files under pydir that
    the entry files (repository-relative) need, transitively (_refs), the
    entries included, sorted.  A sweep keys its runs on BASE_PATHS plus
    these, so an edit elsewhere under mininet/ leaves its keys alone, and
    an edit of anything it runs changes them.  SyntaxError for a file
    that does not parse (it could not run either)."""
    root = os.path.abspath(repo)
    base = os.path.join(root, pydir)
    todo = [os.path.join(root, e) for e in entries]
    seen = set()
    while todo:
        f = os.path.normpath(todo.pop())
        if f in seen:
            continue
        seen.add(f)
        todo.extend(_refs(f, base))
    return sorted(os.path.relpath(f, root) for f in seen)


def run_key(params, code):
    """The cache key (64 hex digits) of a point: params (a dict holding at
    least REQUIRED_PARAMS) and code (code_state()'s dict)."""
    if not isinstance(params, dict):
        raise TypeError("cache: params '%r': not a dict (accepted: a dict of "
                        "JSON values)" % (params,))
    missing = [k for k in REQUIRED_PARAMS if k not in params]
    if missing:
        raise ValueError("cache: params lack %s (accepted: a dict with %s)"
                         % (", ".join(missing), ", ".join(REQUIRED_PARAMS)))
    text = canonical_json({"params": params,
                           "code": {"tree": code["tree"], "dirty_hash": code["dirty_hash"]}})
    return hashlib.sha256(text.encode()).hexdigest()
