package main

// The context and memory provider categories (--category context,
// --category memory) register themselves.
import (
	_ "github.com/agentconform/conform/pluginconform/contextprov"
	_ "github.com/agentconform/conform/pluginconform/memoryprov"
)
