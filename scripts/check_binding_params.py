#!/usr/bin/env python3
"""Checks every binding's hand-written parameter surface against the library's table
(kkm_param_info, kkm_param_aliases), so that a default changed in the core and not in a
binding's documentation fails the suite instead of misleading its users.

    scripts/check_binding_params.py build/src/libkkmeans.so [repository root]

What it checks (each failure names the file, the line and what the library says):
- R: the alias map `.kkm_aliases` in bindings/r/R/kkmeans.R is exactly the library's aliases.
- Java, C#: every key a setter passes to param()/Param() (or "key=" in params()/Params()) is
  a library parameter or alias.
- Documentation (Java and C# doc comments, R's man pages, every README and docs/*.md): each
  stated default of a parameter is the library's. A default is read where the text names the
  key with it: "(key; default V)", "key (default V)", "key, default V", "key=V, the default",
  "k_min and k_max; default 2 and 10", "method and n_init default to auto", and "V (the default" in the doc comment of a setter
  that sets one key, or in R's \\item{key}{...}.
Python's constructor defaults and docstring and the README's table are checked elsewhere
(bindings/python/tests/test_fastkkm.py, scripts/readme_params.py --check).
Prints one line per finding and a summary; exit status 1 on any finding.
"""
import ctypes
import re
import sys
from pathlib import Path

VALUE = r"([A-Za-z0-9_.+\-]+)"


def library_table(path):
    lib = ctypes.CDLL(str(path))
    out = {}
    for i in range(lib.kkm_param_count()):
        fields = [ctypes.c_char_p() for _ in range(5)]
        if lib.kkm_param_info(ctypes.c_int32(i), *(ctypes.byref(f) for f in fields)) != 0:
            sys.exit(f"kkm_param_info({i}) failed")
        aliases = ctypes.c_char_p()
        if lib.kkm_param_aliases(ctypes.c_int32(i), ctypes.byref(aliases)) != 0:
            sys.exit(f"kkm_param_aliases({i}) failed")
        name = fields[0].value.decode()
        out[name] = dict(default=fields[2].value.decode(), aliases=aliases.value.decode().split())
    return out


def same_value(stated, default):
    stated = stated.rstrip(".,:;")
    if stated == default or (stated in ("TRUE", "FALSE") and stated.lower() == default):  # R's logicals
        return True
    try:
        return float(stated) == float(default)
    except ValueError:
        return False


def plain(text):
    """Markup removed: R's \\code{}, Javadoc's {@code }, C#'s <c></c> and <see cref=.../>,
    Markdown's backticks and quotes, comment prefixes; whitespace collapsed."""
    text = re.sub(r"^\s*(///|\*|//|#')\s?", " ", text, flags=re.M)
    text = re.sub(r"\\(code|emph|sQuote|dQuote)\{([^{}]*)\}", r"\2", text)
    text = re.sub(r"\{@(code|link|literal) ([^{}]*)\}", r"\2", text)
    text = re.sub(r"</?(c|code|b|i|em|tt)>", "", text)
    text = re.sub(r"[`\"]", "", text)
    return re.sub(r"\s+", " ", text)


class Checker:
    def __init__(self, table, root):
        self.table, self.root, self.findings, self.checked = table, root, [], 0
        self.keys = dict((name, name) for name in table)
        for name, spec in table.items():
            for alias in spec["aliases"]:
                self.keys[alias] = name

    def fail(self, path, line, message):
        self.findings.append(f"{path.relative_to(self.root)}:{line}: {message}")

    def stated(self, path, line, key, value, how, context):
        name = self.keys.get(key)
        if name is None:
            return
        self.checked += 1
        default = self.table[name]["default"]
        if not same_value(value, default):
            self.fail(path, line, f"states {how} default {value!r} for {key} (\"{context.strip()}\"); "
                                  f"the library's is {default!r}")

    def defaults_in(self, path, text, line, only_key=None, named=True):
        """Stated defaults in one piece of documentation starting at `line`: "V (the default"
        when the piece documents only_key, and (named) those next to a key's name."""
        t = plain(text)
        if only_key is not None:
            for m in re.finditer(rf"(?:^|[ (:,])([A-Za-z0-9_.+\-]+) \(the default\b", t):
                self.stated(path, line, only_key, m[1], "as its own", m[0])
        if not named:
            return
        keys = "|".join(sorted((re.escape(k) for k in self.keys), key=len, reverse=True))
        for m in re.finditer(rf"\b({keys}) (?:and|to) ({keys})\b[^.]{{0,40}}?default {VALUE} (?:and|to) {VALUE}", t):
            self.stated(path, line, m[1], m[3], "the", m[0])
            self.stated(path, line, m[2], m[4], "the", m[0])
            t = t.replace(m[0], " ")
        for m in re.finditer(rf"\b({keys}) and ({keys}) default to {VALUE}", t):
            self.stated(path, line, m[1], m[3], "the", m[0])
            self.stated(path, line, m[2], m[3], "the", m[0])
            t = t.replace(m[0], " ")
        for m in re.finditer(rf"(?<![\w.='’])({keys})(?: \(or \w+\))?[;,:]? \(?default:? {VALUE}", t):
            self.stated(path, line, m[1], m[2], "the", m[0])
        # "key=V (the default for rbf ...)" states what the default resolves to: not checked.
        for m in re.finditer(rf"(?<![\w.'’])({keys})={VALUE}(?:,| \() ?the default(?! for)", t):
            self.stated(path, line, m[1], m[2], "the", m[0])

    # ------------------------------------------------------------------ per surface

    def r_aliases(self):
        path = self.root / "bindings/r/R/kkmeans.R"
        text = path.read_text()
        m = re.search(r"\.kkm_aliases <- c\((.*?)\)\n", text, flags=re.S)
        if m is None:
            self.fail(path, 1, ".kkm_aliases not found")
            return
        line = text[:m.start()].count("\n") + 1
        r_map = dict(re.findall(r"([A-Za-z_.]+) = \"([a-z_]+)\"", m[1]))
        lib_map = {a: name for name, spec in self.table.items() for a in spec["aliases"]}
        self.checked += 1
        for alias in sorted(set(r_map) | set(lib_map)):
            if r_map.get(alias) != lib_map.get(alias):
                self.fail(path, line, f".kkm_aliases maps {alias!r} to {r_map.get(alias)!r}; "
                                      f"the library's alias table says {lib_map.get(alias)!r}")

    def setters(self, path):
        """Java or C#: keys set, and each doc comment's defaults (a setter setting one key
        also answers for "V (the default")."""
        lines = path.read_text().splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            for m in re.finditer(r"\b[pP]aram\(\"([^\"]+)\"", line):
                self.checked += 1
                if m[1] not in self.keys:
                    self.fail(path, i + 1, f"sets {m[1]!r}, which is not a library parameter")
            for m in re.finditer(r"\b[pP]arams\((?:String\.format\(|string\.Format\()?[^\"]*\"([^\"]*)\"", line):
                for key in re.findall(r"([A-Za-z_.]+)=", m[1]):
                    self.checked += 1
                    if key not in self.keys:
                        self.fail(path, i + 1, f"sets {key!r}, which is not a library parameter")
            if re.match(r"\s*(///|/\*\*)", line):
                start = i
                doc = []
                while i < len(lines) and re.match(r"\s*(///|/\*\*|\*)", lines[i]):
                    doc.append(lines[i])
                    i += 1
                body = "\n".join(lines[i:i + 8])
                set_keys = set(re.findall(r"\b[pP]aram\(\"([^\"]+)\"", body.split("\n\n")[0]))
                self.defaults_in(path, "\n".join(doc), start + 1, set_keys.pop() if len(set_keys) == 1 else None)
                continue
            i += 1

    def rd(self, path):
        text = path.read_text()
        for m in re.finditer(r"\\item\{([A-Za-z_.]+)\}\{", text):
            depth, j = 1, m.end()
            while j < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            line = text[:m.start()].count("\n") + 1
            if m[1] in self.keys:
                self.defaults_in(path, text[m.end():j - 1], line, m[1], named=False)
        for number, paragraph in paragraphs(text):
            self.defaults_in(path, paragraph, number)

    def markdown(self, path):
        for number, paragraph in paragraphs(path.read_text()):
            if paragraph.lstrip().startswith("| name | type | default"):
                continue  # the generated table (readme_params.py)
            self.defaults_in(path, paragraph, number)


def paragraphs(text):
    """(first line number, text) of each blank-line separated paragraph, fenced code skipped."""
    out, current, start, fenced = [], [], 1, False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.strip():
            if not current:
                start = number
            current.append(line)
        elif current:
            out.append((start, "\n".join(current)))
            current = []
    if current:
        out.append((start, "\n".join(current)))
    return out


def main(argv):
    if not argv:
        sys.exit(__doc__)
    root = Path(argv[1]).resolve() if len(argv) > 1 else Path(__file__).resolve().parent.parent
    checker = Checker(library_table(Path(argv[0])), root)
    checker.r_aliases()
    for source in ["bindings/java/src/io/github/fastkkm/KernelKMeans.java", "bindings/csharp/src/KernelKMeans.cs"]:
        checker.setters(root / source)
    for rd in sorted((root / "bindings/r/man").glob("*.Rd")):
        checker.rd(rd)
    documents = [root / "README.md", *sorted(root.glob("bindings/*/README.md")), *sorted(root.glob("docs/*.md"))]
    for doc in documents:
        checker.markdown(doc)
    for finding in checker.findings:
        print(f"FAIL {finding}")
    print(f"{checker.checked} statements checked against the library's table, {len(checker.findings)} differ")
    return 1 if checker.findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
