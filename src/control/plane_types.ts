/**
 * The runner-side control plane contract (docs/reference/control-plane.md §4–§8): what the runner calls on every event and
 * boundary, and the hooks through which the plane applies views and hands over accepted steers. Implemented by
 * src/control/plane.ts (files) and a null plane for runs without a store root.
 */
import type {
  AttemptMode,
  Envelope,
  ProviderEvent,
  RunnerEvent,
  SteerDeliveryKind,
  StreamKind,
  View,
} from "../events/mod.ts";
import type { AcceptedSteer, SteerLedger } from "./steer_ledger.ts";

/** Context stamped onto each envelope. */
export interface EventContext {
  prompt_id: string | null;
  attempt: number | null;
  stream: StreamKind | null;
  provider: string | null;
  session_id: string | null;
}

/** Snapshot stages (docs/reference/control-plane.md §4.1). */
export type Stage =
  | "starting"
  | "session"
  | "verifying"
  | "committing"
  | "waiting_retry"
  | "between_prompts"
  | "closed";

/** The latest agent progress of the running prompt (docs/agent-control.md §4). */
export interface AgentProgressSnap {
  run_id: string;
  prompt_id: string;
  iteration: number;
  cursor: string;
  unit: string | null;
  summary: string;
  updated_at: string;
  /** From an earlier iteration or attempt: not a fresh heartbeat. */
  stale: boolean;
}

/** The agent-control part of the snapshot (null when the packet has no agent control). */
export interface AgentControlSnap {
  iteration: number;
  max_iterations: number;
  /** Loop semantics apply (a repeat happened, a later iteration, or default_action repeat): show counts. */
  loop: boolean;
  progress: AgentProgressSnap | null;
  last_directive: { action: string; outcome: string; reason: string | null } | null;
}

/** Runner-owned snapshot fields; the plane folds event-derived counters itself. */
export interface SnapshotPatch {
  agent_control?: AgentControlSnap | null;
  stage?: Stage;
  prompt_id?: string | null;
  prompt_name?: string | null;
  prompt_position?: number;
  selected_count?: number;
  completed_count?: number;
  attempt?: number | null;
  mode?: AttemptMode | null;
  stream?: StreamKind | null;
  provider?: string | null;
  model?: string | null;
  session_id?: string | null;
  session_live?: boolean;
  prompt_started_at?: string | null;
  attempt_started_at?: string | null;
  steer_count?: number;
  steers_pending?: number;
  max_steers?: number;
  last_verification?: { status: string; failures: string[]; at: string } | null;
}

/** A steer that passed acceptance (docs/reference/control-plane.md §8.4); declared with the ledger that holds it. */
export type { AcceptedSteer };

/** What the plane asks of the runner. */
export interface PlaneHooks {
  /** A set_view was applied; `changed` holds only the keys the request named. */
  applyView(view: View, changed: Partial<View>): void;
  /**
   * Whether a steer can reach an agent now (docs/reference/control-plane.md §8.4 checks 3–4), and the prompt it would go to
   * (default: the snapshot's prompt). Budgets are not asked: the plane's {@link SteerLedger} owns them.
   */
  steerGate(): { promptRunning: boolean; sessionLive: boolean; promptId?: string | null };
  /** A steer passed acceptance and sits in the ledger's queue: start delivery (interrupt + resume). */
  steerAccepted(steer: AcceptedSteer): void;
  /** A human notice line for the transcript (e.g. `↳ steer accepted: …`). */
  notice(text: string, level: "info" | "warning" | "error"): void;
}

/** One judged agent-control record. */
export interface AgentControlEntry {
  /** Unique per record and verdict stage (the log skips a key it already has). */
  key: string;
  kind: "progress" | "continue" | "repeat" | "finish" | "blocked" | "unreadable";
  outcome: "accepted" | "applied" | "rejected" | "received";
  reason: string | null;
  author: string;
  prompt_id: string;
  attempt: number;
  iteration: number;
  /** What the record said (token never included). */
  params: Record<string, unknown>;
  /** The runner applied the default action (no record). */
  default?: boolean;
}

/** Delivery facts recorded per delivered steer (docs/reference/control-plane.md §5.3). */
export interface SteerDelivery {
  delivery: SteerDeliveryKind;
  prompt_id: string;
  attempt: number;
  lane: string;
  session_id: string | null;
  interrupted: boolean;
}

/** The runner-side plane. */
export interface RunnerPlane {
  readonly runId: string;
  /** The live view. */
  readonly view: View;
  /**
   * The run's only steer ledger (counts, reservations, budgets, delivery queue). The runner reads it and takes
   * batches from its queue; counts change only through {@link RunnerPlane.steersDelivered} and
   * {@link RunnerPlane.steerRejected}.
   */
  readonly steers: SteerLedger;
  /** Stamp seq/at/context, append to events.jsonl (buffered), fold into the snapshot. */
  record(event: ProviderEvent | RunnerEvent, ctx: EventContext): Envelope;
  /** Write runner-owned snapshot fields now (atomic). */
  transition(patch: SnapshotPatch): void;
  /** A boundary: consume pending request files (cheap when none are pending). */
  boundary(): void;
  /** Resolves when a request may have arrived (watchFs or poll), so a silent stream still reaches a boundary. */
  wake(): Promise<void>;
  /** Record delivered steers: log `applied`, intervention records, steer_delivered events, counts. */
  steersDelivered(steers: AcceptedSteer[], info: SteerDelivery): void;
  /** A queued steer could not be delivered: log `rejected`, release its slot. */
  steerRejected(steer: AcceptedSteer, reason: string): void;
  /** A guardrail hit observed after the fact (log `guardrail` received). */
  guardrail(params: { tool: string; allowed_tools: string[]; rule: string }): void;
  /**
   * An agent-control record judged by the runner (docs/agent-control.md §3): the audit log entry (author
   * `agent:<prompt>#<iteration>`, once per key) and the `agent_control` event.
   */
  agentControl(entry: AgentControlEntry): void;
  /**
   * A prompt boundary: the events and the audit log are flushed and fsynced before it returns; the snapshot (written if
   * anything changed) is handed to its writer, which replaces the file off the runner's thread while the next prompt
   * starts (docs/reference/control-plane.md §4.4). Nothing waits for the snapshot but close.
   */
  syncRecord(): void;
  /** Append run_finished, final snapshot, last sweep, fsync, stop watching. */
  close(status: "completed" | "failed", reason: string | null): Promise<void>;
}
