package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/agentconform/conform/internal/jsonstrict"
)

// partTypes binds every message part to its Go type. Parts with no content
// (the results of session/cancel, session/continue and shutdown, and the
// params of shutdown) are Empty.
var partTypes = map[string]reflect.Type{
	schemaKey(MethodInitialize, PartParams):          reflect.TypeFor[InitializeParams](),
	schemaKey(MethodInitialize, PartResult):          reflect.TypeFor[InitializeResult](),
	schemaKey(MethodSessionRun, PartParams):          reflect.TypeFor[RunParams](),
	schemaKey(MethodSessionRun, PartResult):          reflect.TypeFor[RunSessionResult](),
	schemaKey(MethodSessionCancel, PartParams):       reflect.TypeFor[CancelParams](),
	schemaKey(MethodSessionCancel, PartResult):       reflect.TypeFor[Empty](),
	schemaKey(MethodSessionSpawn, PartParams):        reflect.TypeFor[SpawnParams](),
	schemaKey(MethodSessionSpawn, PartResult):        reflect.TypeFor[RunSessionResult](),
	schemaKey(MethodSessionContinue, PartParams):     reflect.TypeFor[ContinueParams](),
	schemaKey(MethodSessionContinue, PartResult):     reflect.TypeFor[Empty](),
	schemaKey(MethodShutdown, PartParams):            reflect.TypeFor[Empty](),
	schemaKey(MethodShutdown, PartResult):            reflect.TypeFor[Empty](),
	schemaKey(MethodContextAssemble, PartParams):     reflect.TypeFor[ContextAssembleParams](),
	schemaKey(MethodContextAssemble, PartResult):     reflect.TypeFor[ContextAssembleResult](),
	schemaKey(MethodHookDispatch, PartParams):        reflect.TypeFor[HookDispatchParams](),
	schemaKey(MethodHookDispatch, PartResult):        reflect.TypeFor[HookDispatchResult](),
	schemaKey(MethodModelStream, PartParams):         reflect.TypeFor[ModelStreamParams](),
	schemaKey(MethodModelStream, PartResult):         reflect.TypeFor[ModelStreamResult](),
	schemaKey(MethodToolInvoke, PartParams):          reflect.TypeFor[ToolInvokeParams](),
	schemaKey(MethodToolInvoke, PartResult):          reflect.TypeFor[ToolInvokeResult](),
	schemaKey(MethodToolPreview, PartParams):         reflect.TypeFor[ToolPreviewParams](),
	schemaKey(MethodToolPreview, PartResult):         reflect.TypeFor[ToolPreviewResult](),
	schemaKey(MethodFrontendPermission, PartParams):  reflect.TypeFor[PermissionParams](),
	schemaKey(MethodFrontendPermission, PartResult):  reflect.TypeFor[PermissionResult](),
	schemaKey(MethodFrontendInteractive, PartParams): reflect.TypeFor[InteractiveParams](),
	schemaKey(MethodFrontendInteractive, PartResult): reflect.TypeFor[InteractiveResult](),
	schemaKey(MethodFrontendDecide, PartParams):      reflect.TypeFor[FrontendDecideParams](),
	schemaKey(MethodFrontendDecide, PartResult):      reflect.TypeFor[FrontendDecideResult](),
	schemaKey(MethodMemoryWrite, PartParams):         reflect.TypeFor[MemoryWriteParams](),
	schemaKey(MethodMemoryWrite, PartResult):         reflect.TypeFor[Empty](),
	schemaKey(MethodFrontendConfirm, PartParams):     reflect.TypeFor[ConfirmParams](),
	schemaKey(MethodFrontendConfirm, PartResult):     reflect.TypeFor[ConfirmResult](),
	schemaKey(NotifyTraceSpan, PartParams):           reflect.TypeFor[Span](),
	schemaKey(NotifyCostUsage, PartParams):           reflect.TypeFor[CostUsage](),
	schemaKey(NotifySessionMeta, PartParams):         reflect.TypeFor[SessionMeta](),
	schemaKey(NotifyEvent, PartParams):               reflect.TypeFor[Event](),
	schemaKey(NotifyCancelRequest, PartParams):       reflect.TypeFor[CancelRequestParams](),
}

// Decode decodes one message part into a new value of its Go type and
// returns a pointer to it. It is the decoder the schemas agree with: JSON
// does not tell 1200 from 1200.0 and neither do the schemas' "integer", so
// an integral number in any notation decodes into an integer field. A
// schema-valid part can still fail here only when a number does not fit its
// Go field (1e400, or an integer beyond 64 bits); the error names the field,
// e.g. `at /usage/input_tokens: number 1e400 is not an int64`.
func Decode(method, part string, raw json.RawMessage) (any, error) {
	t, ok := partTypes[schemaKey(method, part)]
	if !ok {
		return nil, fmt.Errorf("no Go type for %s %s", method, part)
	}
	v := reflect.New(t).Interface()
	return v, DecodeInto(raw, v)
}

// DecodeInto decodes a JSON text into v as Decode does.
func DecodeInto(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 { // absent, as Validate reads it
		raw = json.RawMessage("null")
	}
	canon, err := jsonstrict.Canonical(raw)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(canon, v); err != nil {
		return describeDecode(err)
	}
	return nil
}

func describeDecode(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	loc := "/" + strings.ReplaceAll(te.Field, ".", "/")
	if strings.HasPrefix(te.Value, "number") {
		return fmt.Errorf("at %s: %s is not %s", loc, te.Value, article(te.Type.String()))
	}
	return fmt.Errorf("at %s: cannot decode %s into %s", loc, te.Value, te.Type)
}

func article(s string) string {
	if strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}
