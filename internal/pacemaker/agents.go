package pacemaker

// agentInfo is one agent of the generated table (agents_gen.go).
type agentInfo struct {
	params  map[string]paramInfo
	actions []Operation
}

type paramInfo struct {
	required   bool
	deprecated bool
	// obsoletes is the deprecated name this parameter replaces (either
	// satisfies a required parameter).
	obsoletes string
	def       string
}
