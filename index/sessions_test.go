package index

import (
	"context"
	"reflect"
	"testing"

	"github.com/memex-archive/memex"
)

// TestSessionsJointEvidence: a session whose entries between them hold
// every word of the query ranks above a session whose one entry scores
// best but holds only one of the words; ranked by its best entry, the
// session that holds both would come second.
func TestSessionsJointEvidence(t *testing.T) {
	f := newFixture(t, nil)
	f.add(t,
		entry{name: "solo", project: "j", session: "one", kind: memex.KindMessage,
			content: "The hotel."},
		entry{name: "booked", project: "j", session: "trip", kind: memex.KindMessage,
			content: "We booked the hotel by the station for three nights."},
		entry{name: "flew", project: "j", session: "trip", kind: memex.KindMessage,
			content: "The flight left two hours late, so we missed dinner."},
		entry{name: "else", project: "j", session: "other", kind: memex.KindMessage,
			content: "My brother took a flight to Lisbon for a conference last spring."},
		entry{name: "filler", project: "j", session: "other", kind: memex.KindMessage,
			content: "Nothing about travel in this one at all."},
	)
	q := Query{Text: "which hotel after the flight", Project: "j"}
	if got := f.names(t, q); len(got) == 0 || got[0] != "solo" {
		t.Fatalf("hits %v: want solo first (the fixture's premise)", got)
	}
	res, err := f.ix.Sessions(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Sessions {
		got = append(got, s.Session)
	}
	if want := []string{"trip", "one", "other"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("sessions %v, want %v", got, want)
	}
	trip := res.Sessions[0]
	if trip.Cover != 1 || len(trip.Hits) != 2 || trip.Project != "j" {
		t.Errorf("trip: cover %v, %d hits, project %q: want 1, 2, j", trip.Cover, len(trip.Hits), trip.Project)
	}
	if c := res.Sessions[1].Cover; c <= 0 || c >= 1 {
		t.Errorf("one: cover %v, want between 0 and 1", c)
	}
	// One word: sessions come in the order of their best entries.
	res, err = f.ix.Sessions(context.Background(), Query{Text: "flight", Project: "j", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 || res.Sessions[0].Cover != 1 {
		t.Errorf("flight, limit 1: %+v, want one session, cover 1", res.Sessions)
	}
	if _, err := f.ix.Sessions(context.Background(), Query{Text: "exit:abc"}); err == nil {
		t.Error("malformed query: no error")
	}
}
