"""Small parser for the FreeDNN public headers (include/*.h).

Shared by gen_not_supported.py, gen_coverage.py and check_abi.py. It relies on the
declaration layout documented at the top of include/cudnn_graph.h:

    [CUDNN_DEPRECATED ]<return type> CUDNNWINAPI
    cudnnName(<type> <name>, ...);

The same layout is used by NVIDIA's headers, so the parser also reads those (for the
ABI cross-check). It is not a C parser: it strips comments and preprocessor lines and
then matches the layout above, `typedef enum { ... } name;` blocks and `#define`s.
"""

import os
import re

# Headers in dependency order; cudnn.h and the v9-named umbrella headers only include.
HEADER_ORDER = [
    "cudnn_version.h",
    "cudnn_graph.h",
    "cudnn_backend.h",
    "cudnn_ops_infer.h",
    "cudnn_ops_train.h",
    "cudnn_ops.h",
    "cudnn_cnn_infer.h",
    "cudnn_cnn_train.h",
    "cudnn_cnn.h",
    "cudnn_adv_infer.h",
    "cudnn_adv_train.h",
    "cudnn_adv.h",
    "cudnn.h",
]

_FUNC_RE = re.compile(
    r"^[ \t]*(?P<dep>CUDNN_DEPRECATED[ \t]+)?"
    r"(?P<ret>[A-Za-z_][\w \t]*?[\w\*])[ \t]*\*?[ \t]*CUDNNWINAPI\s+"
    r"(?P<name>cudnn\w+)\s*\((?P<params>[^;{]*?)\)\s*;",
    re.M,
)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def strip_preprocessor(text):
    # Drop directive lines, including backslash continuations.
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)


def split_params(params):
    params = re.sub(r"\s+", " ", params).strip()
    if params in ("", "void"):
        return []
    return [p.strip() for p in params.split(",")]


_PARAM_RE = re.compile(r"^(?P<type>.*?)(?P<name>[A-Za-z_]\w*)\s*(?P<arr>(?:\[\s*\w*\s*\]\s*)*)$")


def param_type(param):
    """Type of a named parameter, with the name removed ('const int dimA[]' -> 'const int[]')."""
    m = _PARAM_RE.match(param.strip())
    if not m or not m.group("type").strip():
        raise ValueError("parameter without a name: %r" % param)
    t = m.group("type").rstrip()
    arr = re.sub(r"\s+", "", m.group("arr"))
    return (t + arr) if arr else t


def param_name(param):
    m = _PARAM_RE.match(param.strip())
    return m.group("name")


def parse_functions(text):
    """Return [{name, ret, params, deprecated}] for every CUDNNWINAPI declaration in text."""
    text = strip_preprocessor(strip_comments(text))
    out = []
    for m in _FUNC_RE.finditer(text):
        whole = m.group(0)
        ret = m.group("ret").strip()
        # A '*' between the return type and CUDNNWINAPI belongs to the return type.
        head = whole[: whole.index("CUDNNWINAPI")]
        if head.rstrip().endswith("*"):
            ret = ret + " *"
        ret = re.sub(r"\s+", " ", ret).replace(" *", " *")
        out.append(
            {
                "name": m.group("name"),
                "ret": ret,
                "params": split_params(m.group("params")),
                "deprecated": bool(m.group("dep")),
            }
        )
    return out


def parse_enumerators(text):
    """Return {enumerator: enum type name} for every `typedef enum ... { } name` block."""
    text = strip_preprocessor(strip_comments(text))
    out = {}
    for m in re.finditer(r"typedef\s+enum\s*\w*\s*\{(?P<body>[^}]*)\}\s*(?P<name>\w+)", text):
        for item in m.group("body").split(","):
            item = item.strip()
            if not item:
                continue
            ident = re.match(r"[A-Za-z_]\w*", item)
            if ident:
                out[ident.group(0)] = m.group("name")
    return out


def parse_macros(text):
    """Return {macro name: is_function_like} for every #define in text."""
    out = {}
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\()?", strip_comments(text), re.M):
        out[m.group(1)] = bool(m.group(2))
    return out


def parse_structs(text):
    """Return {typedef name: [field names]} for `typedef struct [tag] { ... } name;`."""
    text = strip_preprocessor(strip_comments(text))
    out = {}
    for m in re.finditer(r"typedef\s+struct\s*\w*\s*\{(?P<body>[^{}]*)\}\s*(?P<name>\w+)", text):
        fields = []
        for decl in m.group("body").split(";"):
            decl = decl.strip()
            if not decl:
                continue
            fm = re.search(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*$", decl)
            if fm:
                fields.append(fm.group(1))
        out[m.group("name")] = fields
    return out


def read_headers(include_dir, names=None):
    """Return [(file name, text)] for our headers in dependency order."""
    if names is None:
        names = [n for n in HEADER_ORDER if os.path.exists(os.path.join(include_dir, n))]
        extra = sorted(
            n for n in os.listdir(include_dir) if n.endswith(".h") and n not in HEADER_ORDER
        )
        names += extra
    out = []
    for n in names:
        with open(os.path.join(include_dir, n), encoding="utf-8") as f:
            out.append((n, f.read()))
    return out


def declared_functions(include_dir):
    """Return an ordered {name: decl} over all headers; decl gains a 'header' key."""
    out = {}
    for hname, text in read_headers(include_dir):
        for d in parse_functions(text):
            if d["name"] in out:
                raise ValueError("%s declared twice (%s and %s)" % (d["name"], out[d["name"]]["header"], hname))
            d["header"] = hname
            out[d["name"]] = d
    return out
