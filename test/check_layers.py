#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""test/check_layers.py: the layers of include/tapeless (doc/design.md, "Layers") hold.

A header may use only its own layer and the layers below it. Two ways to break that are found:
  1. an #include of a header of a higher layer;
  2. a function or class declared without its body in a header and defined only in a higher layer:
     the lower header then calls code it cannot include, a link upward that no include shows.
Forward declarations of what the same or a lower layer defines are fine (expr/cut.hpp forward-declares
the node types of expr/unary.hpp, say). One line per finding, naming both files and the name; exits 1
on any finding. Usage: python3 test/check_layers.py [ROOT]  (ROOT: the repository, by default this
script's parent folder's parent).

The C++ is read by a small scanner, not a compiler: comments and literals removed, the statements at
namespace scope split at their ';' or body, and each one's name taken from before its '(' (functions)
or after 'struct'/'class'. Specialisations (a name followed by '<') define no primary template.
"""

import pathlib
import posixpath
import re
import sys

# Bottom to top, as doc/design.md's "Layers" table lists them. A header directly in include/tapeless
# sits above every folder: the top-level headers, then the umbrella, then the umbrella with threads.
FOLDERS = ["meta", "detail", "simd", "math", "concepts", "matrix", "interop", "data", "adjoint", "operation", "linalg",
           "expr", "ops", "sweep", "inspect", "transforms"]
TOP = {"check.hpp": 0, "var.hpp": 0, "version.hpp": 0, "tapeless.hpp": 1, "parallel.hpp": 2}


def layer_of(rel):
    """(rank, layer name) of a header's path below include/tapeless, or None for an unknown place."""
    parts = rel.split("/")
    if len(parts) == 1:
        return (len(FOLDERS) + TOP[parts[0]], parts[0]) if parts[0] in TOP else None
    return (FOLDERS.index(parts[0]), parts[0] + "/") if parts[0] in FOLDERS else None


def without_comments(text):
    """The text with comments, string and character literals blanked, line breaks kept."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])\'', re.S)
    return pattern.sub(lambda m: "\n" * m.group(0).count("\n") if m.group(0)[0] == "/" else '""', text)


def without_preprocessor(text):
    """The text without its preprocessor lines (continued lines too)."""
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)


# A head that ends in a requires-expression's parameters: the '{' after it opens its requirements.
REQUIRES_END = re.compile(r"\brequires\s*(\((?:[^()]|\([^()]*\))*\))?\s*$")


def initialised(head):
    """Whether head has an '=' outside brackets (a variable's or a concept's initialiser follows), not
    counting comparisons and operator names."""
    head = re.sub(r"operator\s*(==|!=|<=>|<=|>=|=|[-+*/%^&|<>]=?)", "operator", head)
    head = re.sub(r"[=!<>]=", " ", head)
    angle = paren = 0
    for c in head:
        if c in "()":
            paren += 1 if c == "(" else -1
        elif not paren and c in "<>":
            angle += 1 if c == "<" else -1
        elif c == "=" and not paren and not angle:
            return True
    return False


def statements(code):
    """The statements at namespace scope, as (head, has_body): the text up to the ';' that ends it, or
    up to the '{' of its body. The braces of namespaces and of extern "C++" are stepped into."""
    out, start, i, n = [], 0, 0, len(code)
    while i < n:
        c = code[i]
        if c == ";":
            out.append((code[start:i].strip(), False))
            start = i + 1
        elif c == "}":  # the end of a namespace
            start = i + 1
        elif c == "{":
            head = code[start:i].strip()
            if re.fullmatch(r"(inline\s+)?namespace(\s+[\w:]+)?|extern\s*\"\"", head):
                start = i + 1
            elif initialised(head) or REQUIRES_END.search(head):
                i = skip_balanced(code, i, "{", "}") - 1  # a lambda, a braced value, a requires-expression
            else:
                out.append((head, True))
                depth = 1
                while depth and i + 1 < n:
                    i += 1
                    depth += {"{": 1, "}": -1}.get(code[i], 0)
                start = i + 1
                # A class's body ends with ';' (and maybe a declarator): part of the same statement.
                m = re.match(r"[^;{}()]*;", code[start:])
                if m:
                    start += m.end()
                    i = start - 1
        i += 1
    return [s for s in out if s[0]]


def skip_balanced(text, i, open_, close):
    """The index after the bracket that closes text[i] (an open_), counting only that bracket kind,
    except '<' and '>' inside parentheses, which are comparisons."""
    depth, paren = 0, 0
    while i < len(text):
        c = text[i]
        if open_ == "<" and c in "()":
            paren += 1 if c == "(" else -1
        elif c == open_ and not paren:
            depth += 1
        elif c == close and not paren:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def without_template_head(head):
    """head without its leading template <...> lines and the requires-clause after them."""
    while True:
        m = re.match(r"\s*template\s*<", head)
        if not m:
            break
        head = head[skip_balanced(head, m.end() - 1, "<", ">"):]
    m = re.match(r"\s*requires\b", head)
    if m:  # primaries (a name with template arguments, or a parenthesised expression) joined by && or ||
        i = m.end()
        while True:
            while i < len(head) and head[i].isspace():
                i += 1
            if head.startswith("(", i):
                i = skip_balanced(head, i, "(", ")")
            else:
                word = re.match(r"!?\s*[\w:]+", head[i:])
                i += word.end() if word else 0
                while i < len(head) and head[i].isspace():
                    i += 1
                if head.startswith("<", i):
                    i = skip_balanced(head, i, "<", ">")
            rest = re.match(r"\s*(&&|\|\|)", head[i:])
            if not rest:
                break
            i += rest.end()
        head = head[i:]
    return head.strip()


KEYWORDS = {"decltype", "sizeof", "alignof", "alignas", "noexcept", "requires", "static_assert", "operator",
            "if", "return", "explicit"}


def declared_name(head):
    """('class' or 'function', name) of a statement's head, or None for anything else (variables,
    aliases, specialisations, static_asserts, using-declarations)."""
    if re.match(r"(using|typedef|static_assert|friend|namespace)\b", head):
        return None
    body = without_template_head(head)
    m = re.match(r"(?:struct|class|union)\s+(?:\[\[[^\]]*\]\]\s*)?(\w+)\s*(final\b)?\s*(:[^:]|$)", body)
    if m:
        return ("class", m.group(1))
    if re.match(r"(?:struct|class|union|enum)\b", body):
        return None  # a specialisation (name<...>) or an enumeration
    i, angle = 0, 0
    while i < len(body):
        c = body[i]
        if c == "<":
            angle += 1
        elif c == ">":
            angle -= 1
        elif c == "=" and not angle:
            return None  # a variable or an alias
        elif c == "(" and not angle:
            name = re.search(r"(\w+)\s*$", body[:i])
            if name and name.group(1) in ("decltype", "alignas", "noexcept"):
                i = skip_balanced(body, i, "(", ")")
                continue
            if not name or name.group(1) in KEYWORDS or re.search(r"operator\W*$", body[:i]):
                return None
            return ("function", name.group(1))
        i += 1
    return None


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    base = root / "include" / "tapeless"
    headers = sorted(p.relative_to(base).as_posix() for p in base.rglob("*.hpp"))
    findings = []
    declared, defined = [], {}  # ((kind, name), header); (kind, name) -> the headers that define it
    for rel in headers:
        here = layer_of(rel)
        if here is None:
            findings.append(f"include/tapeless/{rel}: in no layer; place its folder in test/check_layers.py "
                            f"and doc/design.md's Layers table")
            continue
        raw = (base / rel).read_text(encoding="utf-8")
        for m in re.finditer(r'^[ \t]*#[ \t]*include[ \t]*(?:<tapeless/([^>]+)>|"([^"]+)")', raw, re.M):
            # <tapeless/...>, or "..." relative to the header
            target = m.group(1) or posixpath.normpath(posixpath.join(posixpath.dirname(rel), m.group(2)))
            there = layer_of(target) if (base / target).is_file() else None
            if there is not None and there[0] > here[0]:
                findings.append(f"include/tapeless/{rel} ({here[1]}) includes include/tapeless/{target} "
                                f"({there[1]}), a higher layer")
        for head, has_body in statements(without_preprocessor(without_comments(raw))):
            name = declared_name(head)
            if name is None:
                continue
            if has_body:
                defined.setdefault(name, set()).add(rel)
            else:
                declared.append((name, rel))
    for (kind, name), rel in declared:
        where = defined.get((kind, name), set())
        rank = layer_of(rel)[0]
        if where and all(layer_of(d)[0] > rank for d in where):
            for d in sorted(where):
                findings.append(f"include/tapeless/{rel} ({layer_of(rel)[1]}) declares {kind} {name}, defined "
                                f"only higher, in include/tapeless/{d} ({layer_of(d)[1]})")
    for line in dict.fromkeys(findings):
        print(line)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
