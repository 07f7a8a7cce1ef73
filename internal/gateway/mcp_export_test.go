package gateway

import "time"

// SetConnRecheck is how long a connection's principal holds (ConnAuth)
// before its key is checked again. Call it before s serves anything.
func SetConnRecheck(s *Server, recheck time.Duration) { s.dispatcher.connRecheck = recheck }

// MCPSessions is the number of live MCP sessions of s.
func MCPSessions(s *Server) int {
	s.mcp.sessions.mu.Lock()
	defer s.mcp.sessions.mu.Unlock()
	return len(s.mcp.sessions.byID)
}
