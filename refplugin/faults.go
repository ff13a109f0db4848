package refplugin

// Faults break the reference plugin one rule at a time. The zero value
// breaks nothing.
type Faults struct {
	// Declarations (GetSchema, Describe).
	ResourceReadOnly       bool // write_note declares risk read_only (PL-06)
	InteractiveConcurrency bool // ask declares a ConcurrencySpec (PL-10)
	DuplicateName          bool // search is declared under lookup's name (PL-04)
	KindUnspecified        bool // lookup declares no kind (PL-05)
	EmptyDescription       bool // search has no description (PL-07)
	ArrayWithoutItems      bool // exec's words array declares no items (PL-08)
	ResourceNoConcurrency  bool // write_note declares no ConcurrencySpec (PL-09)
	UnknownKeyField        bool // write_note's key_fields names "filename" (PL-11)
	NoDefaultTimeout       bool // no operation declares default_timeout (PL-12)
	SchemaDrifts           bool // every GetSchema answers a new description (PL-03)
	DescribeWrongCategory  bool // Describe says category model (PL-02)

	// Invoke.
	TwoTerminals        bool // lookup sends its result twice (PL-14)
	LeadUpNotStreaming  bool // lookup (streaming false) sends progress first (PL-15)
	ExitStatusTwice     bool // exec reports exit_status twice (PL-16)
	ExitStatusOnLookup  bool // lookup, not process-backed, sends exit_status (PL-16)
	OutputViolation     bool // lookup's result leaves out required "found" (PL-17)
	AcceptInvalid       bool // lookup without a key answers a result (PL-18)
	InvalidAsFailed     bool // invalid arguments are execution_failed (PL-18)
	UnspecifiedCategory bool // lookup of an empty key fails uncategorized (PL-19)
	UnknownNoDetails    bool // search's unknown error carries no details (PL-20)
	EmitsProcessCrashed bool // exec without words claims process_crashed (PL-21)
	CrashOnCancel       bool // the process exits when a call is cancelled (PL-22)
	CancelLeavesChild   bool // exec leaves a helper process running when cancelled (PL-22)
	SuccessAfterCancel  bool // a cancelled call sends a result anyway (PL-22)

	// Configure and secrets.
	ConfigureAcceptsMissing bool // Configure without token succeeds (PL-23)
	SecretInError           bool // invalid_arguments messages quote the token (PL-24)
	SecretInLog             bool // the Log callback carries the token (PL-24)
	SecretInStderr          bool // the token is written to stderr (PL-24)

	// Preview and Render.
	PreviewWrites bool // Preview of write_note writes the note (PL-25)
	RenderFails   bool // Render answers an internal error (PL-26)

	// Hooks.
	HookWrongShape     bool // observe is answered with a veto (PL-27)
	HookRefusesAll     bool // every dispatch is answered InvalidArgument (PL-27)
	TransformImmutable bool // transform at session-start changes session_id (PL-28)
	VetoUnspecified    bool // veto at plan-ready answers UNSPECIFIED (PL-29)
	HookSlow           bool // session-end answers after 30 s (PL-30)
	HookCrashOnCancel  bool // the process exits when a dispatch is cancelled (PL-31)
}
