import type { SessionInfo } from '../context/mcp-context';
import type { PeerState } from '../protocol/peer';

/** A peer as handlers and listeners see it. */
export function sessionInfo(peer: PeerState): SessionInfo {
  return {
    id: peer.sessionId,
    protocolVersion: peer.protocolVersion,
    clientInfo: peer.clientInfo,
    clientCapabilities: peer.clientCapabilities,
  };
}
