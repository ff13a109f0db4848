Feature: Doom-loop identity of numbers written differently
  The doom-loop hash takes the tool name with the canonical JSON of the
  input, and the specification does not define the canonical form (A-04).
  Key order and whitespace never matter and a changed value always does;
  whether 1.5, 1.50 and 15e-1 are one input is open: RFC 8785 (JCS)
  compares numbers by value, a canonical form that keeps numbers as written
  does not (an integral number may still reach it as an integer, 1.0 as
  1). A kernel says which in its reading doom_loop.number_identity
  (PROTOCOL.md §15); this scenario holds it to that. For a kernel that
  declares no reading it is skipped: nothing is asserted about numbers
  written apart.

  @TA-12 @must
  Scenario: one number written three ways, no two neighbours alike, trips the detector only if the kernel compares numbers by value
    Given the kernel declares its reading of "doom_loop.number_identity"
    And a data_source tool "search" from provider "web" declared safe with no key fields
    And the session allows at most 10 turns
    And the doom-loop threshold is 3
    And the model makes these calls, one per request:
      | tool   | input                |
      | search | {"q":"a","n":1.5}    |
      | search | {"q":"a","n":1.50}   |
      | search | {"q":"a","n":15e-1}  |
      | search | {"q":"a","n":1.5}    |
    And the model answers request 5 with text "Nothing more to search."
    When the session runs
    Then the doom-loop detector told the numbers apart as its reading "doom_loop.number_identity" says: 5 ordinary turns if they differ, the limit path after 3 if they are one value
