package refmemory

// Faults break the reference one rule at a time. The zero value breaks
// nothing.
type Faults struct {
	Ratify bool // a legal variant: declare ratification, every write pending

	DescribeWrongCategory   bool // MM-02
	NoDefaultBudget         bool // MM-03
	DuplicateType           bool // MM-04
	DuplicateScope          bool // MM-05
	NoConfigSchema          bool // MM-06 (and Configure takes anything)
	AcceptsMissing          bool // MM-07
	SecretInError           bool // MM-08
	SecretInStderr          bool // MM-08
	StatusUnspecified       bool // MM-09
	OpaqueIDs               bool // MM-10
	AcceptsUnsupportedType  bool // MM-11
	AcceptsUnsupportedScope bool // MM-12
	GetWrongTitle           bool // MM-13
	GetUnknownEmpty         bool // MM-14
	UpdateUnknownNoop       bool // MM-15
	UpdatePatches           bool // MM-16
	UpdateChangesType       bool // MM-17
	DeleteUnknownNoop       bool // MM-18
	DeleteKeeps             bool // MM-19
	ListRepeats             bool // MM-20
	ListIgnoresFilter       bool // MM-21
	ListHidesPending        bool // MM-22 (with Ratify)
	RecallPending           bool // MM-23 (with Ratify)
	RecallIgnoresFilter     bool // MM-24
	RecallOverBudget        bool // MM-25
	HeuristicTokens         bool // MM-26
	RecallDropsScope        bool // MM-27
	RelevanceOutOfRange     bool // MM-28
	RelevanceOnGet          bool // MM-29
	OldestFirst             bool // MM-31
	AnswersPending          bool // MM-32
	ApproveNoop             bool // MM-33 (with Ratify)
	RejectSoft              bool // MM-34 (with Ratify)
	RatifyAccepted          bool // MM-35 (with Ratify: MM-47, unknown ids accepted)
	ProvenanceChanges       bool // MM-36
	RejectsDanglingLinks    bool // MM-37
	NoErrorDetail           bool // MM-38
	CodeUnknown             bool // MM-39
	UnknownNoMessage        bool // MM-40
	NoHooks                 bool // MM-41
	RenderFails             bool // MM-44
}
