package flinkrun

// KeyGroupsSpec is the (maxParallelism, parallelism) pair every question
// of a "keygroups" scenario is asked about, through Flink's
// KeyGroupRangeAssignment.
type KeyGroupsSpec struct {
	MaxParallelism int `json:"maxParallelism"`
	Parallelism    int `json:"parallelism"`
}

// KeyGroupsOp is one question about a KeyGroupsSpec.
type KeyGroupsOp struct {
	// Op is "operators" (the subtask of every key group), "ranges" (the
	// key groups of every subtask), "default" (the default maxParallelism
	// of Parallelism) or "key" (the key group and subtask of Key).
	Op          string `json:"op"`
	Key         string `json:"key"`
	Parallelism int    `json:"parallelism,omitempty"`
}

// OperatorsQuery, RangesQuery, DefaultMaxParallelismQuery and KeyQuery
// make KeyGroupsOps.
func OperatorsQuery() KeyGroupsOp { return KeyGroupsOp{Op: "operators"} }
func RangesQuery() KeyGroupsOp    { return KeyGroupsOp{Op: "ranges"} }
func DefaultMaxParallelismQuery(parallelism int) KeyGroupsOp {
	return KeyGroupsOp{Op: "default", Parallelism: parallelism}
}
func KeyQuery(key string) KeyGroupsOp { return KeyGroupsOp{Op: "key", Key: key} }

// KeyGroupsStep is Flink's answer to one KeyGroupsOp; only the fields of
// its kind are set.
type KeyGroupsStep struct {
	// Operators is computeOperatorIndexForKeyGroup of key groups 0, 1, …
	Operators []int `json:"operators"`
	// Ranges is computeKeyGroupRangeForOperatorIndex of subtasks 0, 1, …:
	// inclusive [first, last] pairs.
	Ranges [][2]int `json:"ranges"`
	// DefaultMaxParallelism is computeDefaultMaxParallelism.
	DefaultMaxParallelism *int `json:"defaultMaxParallelism"`
	// KeyGroup and Operator are assignToKeyGroup and
	// assignKeyToParallelOperator of a String key: murmurHash of Java's
	// String.hashCode.
	KeyGroup *int `json:"keyGroup"`
	Operator *int `json:"operator"`
	// Rejected is the message with which Flink refused the arguments, or "".
	Rejected string `json:"rejected"`
}

// RunKeyGroups asks Flink's KeyGroupRangeAssignment the questions ops
// about spec, one KeyGroupsStep per op.
func (r *Runner) RunKeyGroups(spec KeyGroupsSpec, ops []KeyGroupsOp) ([]KeyGroupsStep, error) {
	return runSteps[KeyGroupsStep](r, "keygroups", spec, ops)
}
