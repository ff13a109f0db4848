Feature: Deterministic-first conditions, clause by clause
  Every operator of a requires clause (PROTOCOL.md §17.1) on a number and
  on a string, at the boundary and on both sides of it; bare truthiness of
  every kind of JSON value; comparisons that cannot be made; and lists of
  two clauses, each one failing in turn. Each row gates a tool of its own,
  so one model request shows the kernel's verdict on all of them: a tool is
  offered exactly when the table, which is §17.1's, says its gate is open.

  Background:
    Given the session uses the deterministic-first profile

  @DF-04 @seed
  Scenario: every operator, every truthiness and every unevaluable clause opens its gate exactly as the spec's table says
    Given session memory starts as this JSON object:
      """
      {"n": 5, "s": "m", "zero": 0, "empty": "", "list": [], "obj": {}, "no": false, "nil": null,
       "one": 1, "x": "x", "items": [1], "o": {"a": 1}, "yes": true}
      """
    And these tools, each gated as the table says:
      | tool         | requires                | gate   |
      | gt-at        | "n" above 5             | closed |
      | gt-under     | "n" above 4             | open   |
      | gt-over      | "n" above 6             | closed |
      | ge-at        | "n" at least 5          | open   |
      | ge-over      | "n" at least 6          | closed |
      | ge-under     | "n" at least 4          | open   |
      | lt-at        | "n" below 5             | closed |
      | lt-over      | "n" below 6             | open   |
      | lt-under     | "n" below 4             | closed |
      | le-at        | "n" at most 5           | open   |
      | le-under     | "n" at most 4           | closed |
      | le-over      | "n" at most 6           | open   |
      | eq-same      | "n" equal to 5          | open   |
      | eq-float     | "n" equal to 5.0        | open   |
      | eq-other     | "n" equal to 4          | closed |
      | ne-same      | "n" not equal to 5      | closed |
      | ne-other     | "n" not equal to 4      | open   |
      | s-gt-at      | "s" above "m"           | closed |
      | s-gt-under   | "s" above "l"           | open   |
      | s-ge-at      | "s" at least "m"        | open   |
      | s-ge-over    | "s" at least "n"        | closed |
      | s-lt-at      | "s" below "m"           | closed |
      | s-lt-over    | "s" below "n"           | open   |
      | s-le-at      | "s" at most "m"         | open   |
      | s-le-under   | "s" at most "l"         | closed |
      | s-eq-same    | "s" equal to "m"        | open   |
      | s-ne-same    | "s" not equal to "m"    | closed |
      | num-vs-str   | "n" above "a"           | closed |
      | num-vs-str-2 | "n" at most "z"         | closed |
      | str-vs-num   | "s" at most 9           | closed |
      | str-vs-num-2 | "s" at least 0          | closed |
      | unset        | "ghost"                 | closed |
      | unset-ne     | "ghost" not equal to 1  | closed |
      | t-zero       | "zero"                  | closed |
      | t-empty      | "empty"                 | closed |
      | t-list       | "list"                  | closed |
      | t-obj        | "obj"                   | closed |
      | t-false      | "no"                    | closed |
      | t-null       | "nil"                   | closed |
      | t-one        | "one"                   | open   |
      | t-x          | "x"                     | open   |
      | t-items      | "items"                 | open   |
      | t-o          | "o"                     | open   |
      | t-true       | "yes"                   | open   |
      | t-number     | "n"                     | open   |
      | both-hold    | "n" above 4             | open   |
      | both-hold    | "s" at least "m"        | open   |
      | second-fails | "n" above 4             | closed |
      | second-fails | "s" above "m"           | closed |
      | first-fails  | "n" above 5             | closed |
      | first-fails  | "s" at least "m"        | closed |
    And the model answers request 1 with text "Done."
    When the session runs
    Then the session ends with status "completed"
    And model request 1 offered exactly the tools whose gates the table marks open
