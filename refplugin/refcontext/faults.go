package refcontext

// Faults break the reference one rule at a time. The zero value breaks
// nothing.
type Faults struct {
	Compactor bool // a legal variant: declare compactor and fit the whole chain

	DescribeWrongCategory bool // CP-02
	NoDefaultBudget       bool // CP-03
	StabilityUnspecified  bool // CP-04 (capabilities)
	CapabilitiesDrift     bool // CP-05
	NoConfigSchema        bool // CP-06 (and Configure takes anything)
	AcceptsMissing        bool // CP-07
	AcceptsMissingSource  bool // CP-08
	Delta                 bool // CP-09
	MutatesPrior          bool // CP-10
	NoProviderName        bool // CP-11
	NoLabel               bool // CP-12
	ImageBlock            bool // CP-13
	IgnoresBudget         bool // CP-14
	ErrorsUnderPressure   bool // CP-15
	HeuristicTokens       bool // CP-16
	SectionUnspecified    bool // CP-17
	StaticDrifts          bool // CP-18
	KeepsComments         bool // CP-19
	RewritesHistory       bool // CP-20
	CompactorOverBudget   bool // CP-21 (with Compactor)
	NoErrorDetail         bool // CP-24
	AllRetryable          bool // CP-24 (an invalid_request says retryable)
	CodeUnknown           bool // CP-25
	UnknownNoMessage      bool // CP-26
	MalformedAsUnknown    bool // CP-27
	SecretInError         bool // CP-28
	SecretInStderr        bool // CP-28
	RenderFails           bool // CP-30
	TruncatedUnmarked     bool // CP-32 (truncated says the opposite)

	// Bad input for conform's own tests: a plugin that hangs in
	// Contribute, and one that floods its stderr.
	HangContribute bool
	FloodStderr    bool
}
