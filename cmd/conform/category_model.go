package main

// The model-provider category: conform plugin --category model, and
// detection of a plugin serving pluggableharness.model.v1.ModelService.
import _ "github.com/agentconform/conform/pluginconform/model"
