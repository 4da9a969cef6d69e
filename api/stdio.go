package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxStdioLine bounds one line of MCP over stdio, as the SDK bounds a frame.
const maxStdioLine = mcp.DefaultMaxLineLength

// stdioTransport is the SDK's IOTransport over in and out (newline-delimited
// JSON-RPC) with the lines of in looked at before the SDK reads them. The
// SDK ends the session on the first line it cannot decode, and stops
// writing replies as soon as its input ends, so:
//   - a line that is not JSON is answered with a parse error (-32700, id
//     null) and skipped, and one that is JSON but no JSON-RPC message with
//     an invalid request error (-32600); so is a line longer than
//     maxStdioLine (read to its end and dropped), an empty batch, and each
//     member of a batch that is no JSON-RPC message (the rest of the batch
//     goes to the SDK); the session goes on;
//   - the end of in (or an error reading it) reaches the SDK only once every
//     request read before it has been answered on out.
func stdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	c := &stdioConn{in: bufio.NewReader(in), out: out, calls: map[jsonrpc.ID]struct{}{}}
	c.answered = sync.NewCond(&c.mu)
	// The SDK's own frame limit is off: every byte it reads is in a line
	// no longer than maxStdioLine.
	return &mcp.IOTransport{Reader: c, Writer: c, MaxLineLength: -1}
}

// stdioConn is the reader and the writer of stdioTransport. Read is called
// by the SDK's one reading goroutine only; Write and Close may be called
// concurrently with it and with each other.
type stdioConn struct {
	in   *bufio.Reader
	line []byte // the line being read; next is what the SDK has not read of it
	next []byte
	err  error // how in ended; returned once calls is empty

	wmu sync.Mutex // serialises writes to out: the SDK's, and the errors Read answers
	out io.Writer

	mu       sync.Mutex
	answered *sync.Cond // signalled when calls shrinks or the connection closes
	calls    map[jsonrpc.ID]struct{}
	closed   bool
}

var errLineTooLong = fmt.Errorf("api: mcp: a line longer than %d bytes", maxStdioLine)

func (c *stdioConn) Read(p []byte) (int, error) {
	for len(c.next) == 0 {
		if c.err != nil {
			c.waitAnswered()
			return 0, c.err
		}
		var line []byte
		line, c.err = c.readLine()
		if errors.Is(c.err, errLineTooLong) {
			c.err = nil
			if err := c.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a line over %d bytes", maxStdioLine)); err != nil {
				return 0, err
			}
			continue
		}
		if err := c.accept(line); err != nil {
			return 0, err
		}
	}
	n := copy(p, c.next)
	c.next = c.next[n:]
	return n, nil
}

// readLine reads the next line of in, with its newline if it has one. A
// line longer than maxStdioLine is read to its end, dropped, and reported
// as errLineTooLong (unless in failed meanwhile).
func (c *stdioConn) readLine() ([]byte, error) {
	if cap(c.line) > 1<<20 {
		c.line = nil // do not keep a big line's buffer
	}
	c.line = c.line[:0]
	for {
		chunk, err := c.in.ReadSlice('\n')
		if len(c.line)+len(chunk) > maxStdioLine {
			c.line = nil
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = c.in.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			if errors.Is(err, io.EOF) {
				// Said once; the end of in comes with the next read.
				c.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a line over %d bytes", maxStdioLine))
				return nil, io.EOF
			}
			return nil, errLineTooLong
		}
		c.line = append(c.line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return c.line, err
		}
	}
}

// accept hands line to the SDK (in next) if it is a JSON-RPC message or a
// batch, and else answers it with an error. A blank line is skipped.
func (c *stdioConn) accept(line []byte) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if !json.Valid(line) {
		var v json.RawMessage
		return c.reply(nil, jsonrpc.CodeParseError, "Parse error: "+json.Unmarshal(line, &v).Error())
	}
	var msgs []jsonrpc.Message
	if line[0] == '[' {
		// The SDK ends the session on a batch (2025-06-18 dropped them)
		// and on one it cannot decode whole: an empty batch, and each
		// member that is no message, are answered here, and the SDK gets
		// the others one line each (and answers them so).
		var raws []json.RawMessage
		if err := json.Unmarshal(line, &raws); err != nil || len(raws) == 0 {
			return c.reply(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: an empty batch")
		}
		var good [][]byte
		for _, raw := range raws {
			msg, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				if err := c.reply(requestID(raw), jsonrpc.CodeInvalidRequest, "Invalid Request: batch member: "+err.Error()); err != nil {
					return err
				}
				continue
			}
			msgs = append(msgs, msg)
			good = append(good, raw)
		}
		if len(good) == 0 {
			return nil
		}
		var joined bytes.Buffer
		for i, raw := range good {
			if i > 0 {
				joined.WriteByte('\n')
			}
			joined.Write(raw)
		}
		line = joined.Bytes()
	} else {
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return c.reply(requestID(line), jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
		}
		msgs = append(msgs, msg)
	}
	c.mu.Lock()
	for _, msg := range msgs {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.calls[req.ID] = struct{}{}
		}
	}
	c.mu.Unlock()
	c.next = append(line, '\n')
	return nil
}

// requestID is the id of a message that is not a valid one, if it has a
// valid id, else nil (which JSON-RPC answers with id null).
func requestID(line []byte) any {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return nil
	}
	return id.Raw()
}

// reply writes a JSON-RPC error response to out (not through Write: it
// answers no call read).
func (c *stdioConn) reply(id any, code int64, msg string) error {
	b, err := json.Marshal(struct {
		Version string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.out.Write(append(b, '\n'))
	return err
}

// waitAnswered waits until every call read has been answered, or the
// connection is closed.
func (c *stdioConn) waitAnswered() {
	c.mu.Lock()
	for len(c.calls) > 0 && !c.closed {
		c.answered.Wait()
	}
	c.mu.Unlock()
}

// Write writes one message (or batch) of the SDK's, on one line, to out,
// and notes the calls it answers.
func (c *stdioConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	n, err := c.out.Write(p)
	c.wmu.Unlock()
	if err != nil {
		return n, err
	}
	c.mu.Lock()
	waiting := len(c.calls) > 0
	c.mu.Unlock()
	if !waiting {
		return n, nil
	}
	var ids []jsonrpc.ID
	line := bytes.TrimSpace(p)
	raws := []json.RawMessage{line}
	if len(line) > 0 && line[0] == '[' {
		_ = json.Unmarshal(line, &raws)
	}
	for _, raw := range raws {
		if msg, err := jsonrpc.DecodeMessage(raw); err == nil {
			if resp, ok := msg.(*jsonrpc.Response); ok {
				ids = append(ids, resp.ID)
			}
		}
	}
	if len(ids) > 0 {
		c.mu.Lock()
		for _, id := range ids {
			delete(c.calls, id)
		}
		c.answered.Broadcast()
		c.mu.Unlock()
	}
	return n, nil
}

// Close stops waiting for answers; in and out are the caller's and stay
// open.
func (c *stdioConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.answered.Broadcast()
	c.mu.Unlock()
	return nil
}
