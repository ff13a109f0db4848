package canon

import "testing"

func TestJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"b":1, "a":[3, 2]}`, `{"a":[3,2],"b":1}`},
		{" {\n\"x\" : {\"z\":true,\"y\":null}}", `{"x":{"y":null,"z":true}}`},
		{`1.0`, `1.0`},
		{`12345678901234567890`, `12345678901234567890`},
		{`"<a&b>"`, `"<a&b>"`},
		{``, `null`},
	}
	for _, c := range cases {
		got, err := JSON([]byte(c.in))
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if string(got) != c.want {
			t.Errorf("JSON(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	if _, err := JSON([]byte(`{"a":`)); err == nil {
		t.Error("truncated JSON accepted")
	}
}
