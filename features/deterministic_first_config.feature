Feature: Deterministic-first config the kernel must refuse
  A deterministic_first block the profile cannot run as written is refused
  with -32001 before the session starts (PROTOCOL.md §17.2), never run with
  the part the kernel cannot honour dropped. Each scenario puts the fault
  after a valid part, so a kernel that checks only the first gate, block,
  step, skill or clause lets it through. The tag names the requirement the
  refused part serves.

  Background:
    Given the session uses the deterministic-first profile
    And a data_source tool "lookup" from provider "shop"
    And a resource tool "refund" from provider "bank"

  @DF-03 @seed
  Scenario: a second gate naming a tool the session does not have is refused
    Given the deterministic_first block is:
      """
      {"tools": [{"tool": "lookup", "requires": [{"key": "ok"}]},
                 {"tool": "ghost", "requires": [{"key": "ok"}]}]}
      """
    When the session runs
    Then the kernel refused the deterministic_first config before the session started

  @DF-03 @seed
  Scenario: a tool gated twice is refused
    Given the deterministic_first block is:
      """
      {"tools": [{"tool": "refund", "requires": [{"key": "approved"}]},
                 {"tool": "refund", "requires": [{"key": "verified"}]}]}
      """
    When the session runs
    Then the kernel refused the deterministic_first config before the session started

  @DF-01 @seed
  Scenario: a step naming a tool the session does not have, second in the second block, is refused
    Given the deterministic_first block is:
      """
      {"blocks": [{"name": "first", "steps": [{"type": "noop"}]},
                  {"name": "second", "steps": [{"type": "noop"}, {"type": "execute_tool", "tool": "ghost"}]}]}
      """
    When the session runs
    Then the kernel refused the deterministic_first config before the session started

  @DF-06 @seed
  Scenario: two skills of one name are refused
    Given the deterministic_first block is:
      """
      {"skills": [{"name": "faq", "description": "Answers questions"},
                  {"name": "faq", "description": "Answers other questions"}]}
      """
    When the session runs
    Then the kernel refused the deterministic_first config before the session started

  @DF-04 @seed
  Scenario: a gate whose second clause compares with no value is refused
    Given the deterministic_first block is:
      """
      {"tools": [{"tool": "refund", "requires": [{"key": "approved"}, {"key": "amount", "op": "gt"}]}]}
      """
    When the session runs
    Then the kernel refused the deterministic_first config before the session started
