"""Lists the mutants of a Python file for cmd/kitmutate, with the operators
of internal/mutation (operators.go) carried over to Python's ast.

No mutation tool for Python is reachable here (PyPI is not), so this is
the hand-written part: about a hundred lines on the standard library's
ast. Each mutant is one byte-range edit of the file (start, end, text),
which the Go judge applies to a copy; an edit never changes how many lines
the file has, so every other line keeps its number.

    python3 pymutate.py FILE > mutants.json
"""

import ast
import json
import sys

SWAP_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
NEG_CMP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
ARITH = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}


class Lister(ast.NodeVisitor):
    def __init__(self, src: bytes):
        self.src = src
        self.starts = [0]
        for i, b in enumerate(src):
            if b == 10:
                self.starts.append(i + 1)
        self.out = []
        self.scope = []
        self.fstring = 0

    def off(self, line, col):
        return self.starts[line - 1] + col

    def span(self, node):
        return self.off(node.lineno, node.col_offset), self.off(node.end_lineno, node.end_col_offset)

    def add(self, node, op, repl_node=None, text=None, stmt=False):
        if self.fstring:
            return  # inside an f-string an edit would have to respect its quoting
        start, end = self.span(node)
        orig = self.src[start:end].decode("utf-8")
        if text is None:
            text = ast.unparse(repl_node)
        lines = orig.count("\n")
        # The edit keeps the line count: parenthesised, an expression may
        # span the lines the original did; a removed statement is a
        # parenthesised None over the same lines.
        if text == "pass":
            text = "(None" + "\n" * lines + ")" if lines else "pass"
        elif stmt:
            if lines:
                return
        else:
            text = "(" + text + "\n" * lines + ")"
        self.out.append({"line": node.lineno, "col": node.col_offset + 1, "op": op, "func": ".".join(self.scope),
                         "orig": " ".join(orig.split()), "repl": "" if op in ("remove_call", "drop_assign") else " ".join(text.split()),
                         "start": start, "end": end, "text": text})

    def scoped(self, node):
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = scoped

    def visit_Compare(self, node):
        for i, op in enumerate(node.ops):
            for table, name in ((SWAP_CMP, "boundary"), (NEG_CMP, "negate")):
                if type(op) in table:
                    m = ast.Compare(left=node.left, ops=list(node.ops), comparators=node.comparators)
                    m.ops[i] = table[type(op)]()
                    self.add(node, name, m)
        self.generic_visit(node)

    def negate_test(self, node):
        self.add(node.test, "negate", ast.UnaryOp(op=ast.Not(), operand=node.test))
        self.generic_visit(node)

    visit_If = visit_While = visit_IfExp = negate_test

    def visit_BinOp(self, node):
        if type(node.op) in ARITH:
            self.add(node, "arith", ast.BinOp(left=node.left, op=ARITH[type(node.op)](), right=node.right))
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        if type(node.op) in ARITH:
            m = ast.AugAssign(target=node.target, op=ARITH[type(node.op)](), value=node.value)
            self.add(node, "arith", m, stmt=True)
        self.add(node, "drop_assign", text="pass")
        self.generic_visit(node)

    def visit_Assign(self, node):
        self.add(node, "drop_assign", text="pass")
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.add(node, "drop_assign", text="pass")
        self.generic_visit(node)

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Call):
            self.add(node, "remove_call", text="pass")
        self.generic_visit(node)

    def visit_JoinedStr(self, node):
        self.fstring += 1
        self.generic_visit(node)
        self.fstring -= 1

    def visit_Constant(self, node):
        if type(node.value) is int:
            self.add(node, "const", ast.Constant(node.value + 1))

    def visit_For(self, node):
        # The loop runs its whole body for the first element only, as
        # internal/mutation's loop_cut breaks after the first pass.
        it = node.iter
        n = len(self.out)
        self.add(it, "loop_cut", text="list(%s)[:1]" % ast.unparse(it))
        if len(self.out) > n:
            self.out[-1]["repl"] = "list(%s)[:1]" % " ".join(ast.unparse(it).split())
        self.generic_visit(node)


def main():
    path = sys.argv[1]
    src = open(path, "rb").read()
    lister = Lister(src)
    lister.visit(ast.parse(src, path))
    for m in lister.out:
        try:
            compile(src[:m["start"]] + m["text"].encode("utf-8") + src[m["end"]:], path, "exec")
        except SyntaxError as exc:
            m["not_viable"] = str(exc)
    # A mutant that does not compile is reported not viable, unjudged.
    json.dump(lister.out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
