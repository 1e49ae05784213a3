package server

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/net/netutil"
)

// The limits of a connection, stated alike for the Java service's Tomcat
// (bank-java application.yaml): a slow or idle client is dropped without
// holding anything but its socket for long. Neither limits the requests
// one keep-alive connection serves (Tomcat's max-keep-alive-requests -1).
const (
	// MaxConnections bounds the open connections (Tomcat's max-connections);
	// more wait in the kernel's listen backlog until one closes.
	MaxConnections = 10_000
	// StallTimeout drops a client that is this late with its headers, or
	// leaves its connection idle this long between requests (Tomcat's
	// connection-timeout and keep-alive-timeout).
	StallTimeout = 10 * time.Second
	// readTimeout bounds reading a whole request, headers and body. It also
	// cancels a handler still running then, so it stays above the store's
	// acquire and query timeouts.
	readTimeout = 2 * StallTimeout
)

// NewHTTPServer returns the server of handler with the limits above.
func NewHTTPServer(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: StallTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       StallTimeout,
	}
}

// Listener returns ln holding at most MaxConnections open at once, and
// answering in JSON the requests net/http rejects before any handler runs.
func Listener(ln net.Listener) net.Listener {
	return jsonErrorsListener{netutil.LimitListener(ln, MaxConnections)}
}

// plainErrorHeaders end the status line of every answer net/http writes by
// itself to a request it cannot read: a malformed request line (such as a
// bad percent-encoding in the path), malformed or oversized headers. It
// writes them in plain text, in one Write straight to the connection,
// with no hook to change them; the handlers never send text/plain.
const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

type jsonErrorsListener struct{ net.Listener }

func (l jsonErrorsListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return jsonErrorsConn{conn}, nil
}

// jsonErrorsConn rewrites net/http's plain-text error answers into the
// contract's JSON error, keeping their status.
type jsonErrorsConn struct{ net.Conn }

func (c jsonErrorsConn) Write(p []byte) (int, error) {
	const prefix = "HTTP/1.1 "
	head, _, found := bytes.Cut(p, []byte(plainErrorHeaders))
	if !found || len(head) < len(prefix)+3 || !bytes.HasPrefix(head, []byte(prefix)) {
		return c.Conn.Write(p)
	}
	status, err := strconv.Atoi(string(head[len(prefix) : len(prefix)+3]))
	if err != nil {
		return c.Conn.Write(p)
	}
	body := errorBody(statusAnswer(status))
	answer := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"+
		"Connection: close\r\n\r\n%s", status, http.StatusText(status), len(body), body)
	if _, err := c.Conn.Write([]byte(answer)); err != nil {
		return 0, err
	}
	return len(p), nil
}
