package hookgen

import (
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"

	hookv1 "github.com/agentconform/conform/api/gen/pluggableharness/hook/v1"
)

// Variant names the payload variant set ("pre_model_call"), "" for none.
func Variant(p *hookv1.HookPayload) string {
	m := p.ProtoReflect()
	od := m.Descriptor().Oneofs().ByName("payload")
	if fd := m.WhichOneof(od); fd != nil {
		return string(fd.Name())
	}
	return ""
}

// mutable are the transform-mutable fields of each variant.
var mutable = map[string][]protoreflect.Name{
	"pre_model_call": {"messages"},
}

// Changed says what a transform answer changed that it must not: another
// variant, or a field the point does not let a subscriber rewrite. "" when
// the answer only touched what it may.
func Changed(in, out *hookv1.HookPayload) string {
	vin, vout := Variant(in), Variant(out)
	if vout != vin {
		if vout == "" {
			return "the transform answer carries no payload (want the " + vin + " variant back)"
		}
		return fmt.Sprintf("the transform answer is the %s variant, not %s", vout, vin)
	}
	a := in.ProtoReflect().Get(in.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(vin))).Message()
	b := out.ProtoReflect().Get(out.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(vin))).Message()
	var changed []string
	fields := a.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if isMutable(vin, fd.Name()) {
			continue
		}
		if !sameField(a, b, fd) {
			changed = append(changed, string(fd.Name()))
		}
	}
	if len(changed) == 0 {
		return ""
	}
	diff := cmp.Diff(in, out, protocmp.Transform())
	return fmt.Sprintf("the transform answer changed %s of %s, which %s not transform-mutable: %s",
		strings.Join(changed, ", "), vin, map[bool]string{true: "is", false: "are"}[len(changed) == 1], clip(diff, 400))
}

func isMutable(variant string, f protoreflect.Name) bool {
	for _, m := range mutable[variant] {
		if m == f {
			return true
		}
	}
	return false
}

// sameField compares one field of two messages of the same type.
func sameField(a, b protoreflect.Message, fd protoreflect.FieldDescriptor) bool {
	if a.Has(fd) != b.Has(fd) {
		return false
	}
	ca, cb := a.New(), b.New()
	if a.Has(fd) {
		ca.Set(fd, a.Get(fd))
		cb.Set(fd, b.Get(fd))
	}
	return proto.Equal(ca.Interface(), cb.Interface())
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
