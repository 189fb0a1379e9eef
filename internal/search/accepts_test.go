package search

import "testing"

// Accepts is Accept's decision without the hit: the same for every
// filter and kind of query.
func TestAcceptsIsAccept(t *testing.T) {
	msgs := []Message{
		{ID: "1", Role: "user", Timestamp: 100, Text: "deploy the Service now"},
		{ID: "2", Role: "assistant", Timestamp: 200, Text: "the service is up"},
		{ID: "3", Role: "tool", Timestamp: 300, Text: "service: ok"},
		{ID: "4", Role: "user", Timestamp: 400, Text: "nothing here"},
	}
	for _, q := range []Query{{Pattern: "service"}, {Pattern: "SERVICE", IgnoreCase: true}, {Pattern: "serv.ce", Regex: true},
		{Pattern: "service the", Words: true}, {Pattern: "zzz"}} {
		m, err := Compile(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []Options{{}, {IncludeTools: true}, {Roles: []string{"assistant"}}, {Since: 150}, {Until: 250, IncludeTools: true}} {
			o.Matcher = m
			n := 0
			for _, msg := range msgs {
				_, ok := o.Accept(msg, 0)
				if o.Accepts(msg) != ok {
					t.Errorf("%+v, %+v, message %s: Accepts %v, Accept %v", q, o, msg.ID, !ok, ok)
				}
				if ok {
					n++
				}
			}
			if q.Pattern == "service" && len(o.Roles) == 0 && o.Since == 0 && o.Until == 0 && n == 0 {
				t.Errorf("%+v: no hit at all: the test tests nothing", o)
			}
		}
	}
}
