Feature: Denials that tell the model why, also when nobody answered
  A denied call never runs, and its tool_result says what decided it (PA-03):
  the precheck's rule for a read or an interactive call, and for an asked
  item that got no usable decision, why not: its permission request failed,
  the answer left it out, or every answer was one the kernel had to refuse.
  An item nobody allowed is never applied; a kernel may deny it or end the
  session, but it never asks forever past the limit it declares.

  @PA-03 @must
  Scenario Outline: a <kind> call the precheck denies never runs, and its denial names the rule
    Given <tool>
    And a policy rule "no-<name>" that denies "<name>"
    And the model answers request 1 with calls <name>(<arg> "x")
    And the model answers request 2 with text "Understood."
    When the session runs
    Then the tool "<name>" was never invoked
    And model request 2 holds a denial with a reason for the call to "<name>"

    Examples:
      | kind        | name    | arg      | tool                                                                             |
      | data_source | secrets | name     | a data_source tool "secrets" from provider "vault" declared safe with no key fields |
      | interactive | confirm | question | an interactive tool "confirm" from provider "ui"                                  |

  @PA-03 @must
  Scenario Outline: an asked item whose <what> is denied, and the model is told why
    Two items are asked about (in one request or two). Should the kernel
    ask again, the frontend then denies both.
    Given a resource tool "save" from provider "store"
    And a resource tool "drop" from provider "store"
    And a policy rule "store-ask" that asks for the tools of provider "store"
    And <first answer>
    And the frontend then answers permission for "save" with DENY
    And the frontend answers permission for "drop" with DENY
    And the model answers request 1 with calls save(key "1"), drop(key "2")
    And the model answers request 2 with text "Understood."
    When the session runs
    Then the tool "save" was never invoked
    And the tool "drop" was never invoked
    And model request 2 holds a denial with a reason for the call to "save"
    And model request 2 holds a denial with a reason for the call to "drop"

    Examples:
      | what                              | first answer                                                  |
      | permission request failed         | the frontend first fails the permission request about "save"  |
      | decision the answer left out      | the frontend first leaves "save" out of its permission answer |

  @PA-19 @PA-03 @must
  Scenario: an item whose every answer the kernel must refuse is asked as often as the kernel declares, then denied
    The frontend answers ALLOW for always, which a kernel without a policy
    store must refuse; the item stays pending and is asked again (A-37), as
    often as the kernel's reading plan.max_asks says. Past it the frontend
    would answer DENY; a kernel that declares no limit is asked until that
    DENY comes with its request 11.
    Given a resource tool "save" from provider "store"
    And a policy rule "ask-save" that asks for "save"
    And the frontend answers permission for "save" with ALLOW and scope ALWAYS until the kernel stops asking
    And the model answers request 1 with calls save(key "1")
    And the model answers request 2 with text "Understood."
    When the session runs
    Then the frontend was asked about "save" as often as the kernel's plan.max_asks says
    And model request 2 holds a denial with a reason for the call to "save", unless the kernel ran it
