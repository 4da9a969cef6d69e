package eval

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/jsonerr"
	"github.com/memex-archive/memex/internal/lazyre"
)

// LoadDataset reads a LongMemEval or LoCoMo JSON file whole. A question
// without evidence (LongMemEval's abstention questions) is kept and scored
// as nothing to find: the metrics skip it. A file that is not the format's
// JSON array is memex.ErrInvalid with one line saying what was expected
// and what was found where; it names the file when r has a Name method
// (an *os.File does). ScanDataset reads one haystack at a time instead.
func LoadDataset(r io.Reader, format string) (Dataset, error) {
	var ds Dataset
	err := ScanDataset(r, format, func(one Dataset) error {
		for _, q := range one.Questions {
			q.Haystack += len(ds.Haystacks)
			ds.Questions = append(ds.Questions, q)
		}
		ds.Haystacks = append(ds.Haystacks, one.Haystacks...)
		return nil
	})
	return ds, err
}

// ScanDataset reads a LongMemEval or LoCoMo JSON file one element of its
// array at a time and calls fn with each element's haystack and questions
// (a Dataset of one haystack), so that a file of any size is read in the
// memory of its largest element. Its errors are LoadDataset's, and fn's.
func ScanDataset(r io.Reader, format string, fn func(Dataset) error) error {
	var each func(dec *json.Decoder, n int) (Dataset, error)
	var what string
	switch format {
	case LongMemEval:
		each, what = longMemEvalItem, "questions (question_id, question, haystack_session_ids, haystack_sessions, answer_session_ids)"
	case LoCoMo:
		each, what = loCoMoItem, "samples (sample_id, conversation, qa)"
	default:
		return fmt.Errorf("eval: retrieval format %q: want longmemeval or locomo: %w", format, memex.ErrInvalid)
	}
	file := fileOf(r)
	br := bufio.NewReaderSize(r, 1<<16)
	// Look at the first byte, so that a file of another shape is named
	// for what it is rather than by the decoder's complaint.
	start := 0
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			return fmt.Errorf("eval: %s: %swant a JSON array of %s: found nothing (an empty file): %w", format, file, what, memex.ErrInvalid)
		}
		if err != nil {
			return fmt.Errorf("eval: %s: %s%w", format, file, err)
		}
		if b == ' ' || b == '\t' || b == '\r' || b == '\n' {
			start++
			continue
		}
		if b != '[' {
			return fmt.Errorf("eval: %s: %swant a JSON array of %s: found %s at offset %d: %w", format, file, what, jsonStart(b), start, memex.ErrInvalid)
		}
		_ = br.UnreadByte()
		break
	}
	dec := json.NewDecoder(br)
	if _, err := dec.Token(); err != nil { // the '['
		return fmt.Errorf("eval: %s: %s%w", format, file, err)
	}
	bad := func(base int64, err error) error {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("eval: %s: %sJSON cut short: %w", format, file, memex.ErrInvalid)
		}
		return fmt.Errorf("eval: %s: %s%s: %w", format, file, jsonerr.Describe(shift(err, base)), memex.ErrInvalid)
	}
	questions := 0
	for n := 0; dec.More(); n++ {
		base := dec.InputOffset() + int64(start)
		one, err := each(dec, n)
		if errors.Is(err, memex.ErrInvalid) {
			return err
		}
		if err != nil {
			return bad(base, err)
		}
		questions += len(one.Questions)
		if err := fn(one); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return bad(int64(start), err)
	}
	if questions == 0 {
		// A file of the other format decodes too (unknown fields are
		// ignored), into nothing to ask: say so rather than score nothing.
		return fmt.Errorf("eval: %s: %sno questions in it; is it a %s file? %w", format, file, format, memex.ErrInvalid)
	}
	return nil
}

// shift moves the offset of a decoding error of one array element (which
// counts from the element's start) to count from the start of the file.
func shift(err error, base int64) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		c := *te
		c.Offset += base
		return &c
	case errors.As(err, &se):
		c := *se
		c.Offset += base
		return &c
	}
	return err
}

func longMemEvalItem(dec *json.Decoder, _ int) (Dataset, error) {
	var it struct {
		QuestionID  string   `json:"question_id"`
		Question    string   `json:"question"`
		RawSessions []string `json:"haystack_session_ids"`
		Haystack    [][]struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			HasAnswer bool   `json:"has_answer"`
		} `json:"haystack_sessions"`
		AnswerSessions []string `json:"answer_session_ids"`
	}
	if err := dec.Decode(&it); err != nil {
		return Dataset{}, err
	}
	if len(it.RawSessions) != len(it.Haystack) {
		return Dataset{}, fmt.Errorf("eval: longmemeval %s: %d session ids for %d sessions: %w",
			it.QuestionID, len(it.RawSessions), len(it.Haystack), memex.ErrInvalid)
	}
	h := Haystack{ID: it.QuestionID, Turns: map[string][]Turn{}}
	q := Question{ID: it.QuestionID, Text: it.Question, EvidSessions: it.AnswerSessions}
	for i, sid := range it.RawSessions {
		h.Sessions = append(h.Sessions, sid)
		for j, t := range it.Haystack[i] {
			id := sid + "#" + strconv.Itoa(j)
			h.Turns[sid] = append(h.Turns[sid], Turn{ID: id, Text: t.Role + ": " + t.Content})
			if t.HasAnswer {
				q.EvidTurns = append(q.EvidTurns, id)
			}
		}
	}
	return Dataset{Haystacks: []Haystack{h}, Questions: []Question{q}}, nil
}

var locomoSession = lazyre.New(`^session_(\d+)$`)

func loCoMoItem(dec *json.Decoder, n int) (Dataset, error) {
	var it struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string          `json:"question"`
			Answer   json.RawMessage `json:"answer"`
			Evidence []string        `json:"evidence"`
			Category int             `json:"category"`
		} `json:"qa"`
	}
	if err := dec.Decode(&it); err != nil {
		return Dataset{}, err
	}
	id := it.SampleID
	if id == "" {
		id = "sample-" + strconv.Itoa(n)
	}
	h := Haystack{ID: id, Turns: map[string][]Turn{}}
	var nums []int
	for k := range it.Conversation {
		if m := locomoSession().FindStringSubmatch(k); m != nil {
			v, _ := strconv.Atoi(m[1])
			nums = append(nums, v)
		}
	}
	sort.Ints(nums)
	for _, v := range nums {
		sid := "session_" + strconv.Itoa(v)
		var turns []struct {
			Speaker string `json:"speaker"`
			DiaID   string `json:"dia_id"`
			Text    string `json:"text"`
		}
		if err := json.Unmarshal(it.Conversation[sid], &turns); err != nil {
			return Dataset{}, fmt.Errorf("eval: locomo %s %s: turns: %s: %w", id, sid, jsonerr.Describe(err), memex.ErrInvalid)
		}
		h.Sessions = append(h.Sessions, sid)
		for _, t := range turns {
			h.Turns[sid] = append(h.Turns[sid], Turn{ID: t.DiaID, Text: t.Speaker + ": " + t.Text})
		}
	}
	ds := Dataset{Haystacks: []Haystack{h}}
	for j, qa := range it.QA {
		q := Question{ID: id + "#" + strconv.Itoa(j), Text: qa.Question}
		seen := map[string]bool{}
		for _, ev := range qa.Evidence {
			// dia_id "D3:7" is turn 7 of session_3.
			q.EvidTurns = append(q.EvidTurns, ev)
			if d, _, ok := strings.Cut(strings.TrimPrefix(ev, "D"), ":"); ok && !seen[d] {
				seen[d] = true
				q.EvidSessions = append(q.EvidSessions, "session_"+d)
			}
		}
		ds.Questions = append(ds.Questions, q)
	}
	return ds, nil
}

// fileOf is "NAME: " for a reader with a name (an *os.File), else "".
func fileOf(r io.Reader) string {
	if n, ok := r.(interface{ Name() string }); ok {
		return n.Name() + ": "
	}
	return ""
}

// jsonStart names the JSON value that begins with b.
func jsonStart(b byte) string {
	switch {
	case b == '{':
		return "an object"
	case b == '"':
		return "a string"
	case b == '-' || b >= '0' && b <= '9':
		return "a number"
	case b == 't' || b == 'f':
		return "a boolean"
	case b == 'n':
		return "null"
	}
	return fmt.Sprintf("no JSON (%q)", b)
}
