// Package guard holds the refusals of keys and actions on panes they must
// not reach (issue 42: every path keys can take to a pane). Each guard
// says no unless the caller's arguments, the tier and flags, or the user
// say yes:
//
//   - the caller's own pane (ownpane.go finds it, per server, from the
//     process ancestry or TMUX and TMUX_PANE): typing into it, respawning,
//     killing, clearing it or changing its copy mode, and killing its
//     window, session or server (selfprotect.go), because an agent that
//     types there can answer its own approval prompts;
//   - a pane whose window has synchronize-panes on and holds the caller's
//     pane, and turning the option on where it reaches that pane
//     (selfsync.go), because tmux copies the keys into the caller's pane;
//   - a pane another agent CLI runs in or shows behind a terminal client,
//     without allow_agent, and always while that agent asks a permission
//     question (drivenpane.go, agent_pane.go), because the keys would be
//     taken as that agent's input or answer its question;
//   - a pane a person is working in, without allow_attended
//     (drivenpane.go), because the keys would land in what they type;
//   - turning synchronize-panes on over such panes (syncdriven.go), since
//     from then on keys typed into a sibling reach them;
//   - the panes of the callers of a call routed here from a tmux-mcp of
//     this machine (hopcaller.go), which count as the caller's own.
//
// Where the caller's own pane is at stake the user may be asked instead
// (confirm.go: MCP elicitation, never inside a batch).
//
// Where to start: [Guard] is what the guards need of one catalog of
// tools (the caller, the tier's flags, the memory of panes); its methods
// are the checks. [Guard.CheckTyping] is the check before any keys go
// out; [Guard.GuardPane] and [Guard.AllowSelf] guard the other actions;
// [Guard.GuardSyncOption] and [Guard.GuardSyncDriven] guard
// set_option synchronize-panes. A refusal is an [*Error] (message, class,
// hint) or an [*AskUser], the question put to the user.
//
// Every path that types into a pane must pass through it: send_keys,
// send_keys_batch, paste_text, paste_buffer, run_command and
// submit_prompt through CheckTyping (the batch tools call those tools'
// handlers, and a batch refuses what would need a question);
// answer_permission through CheckTypingSelf, CheckAttended and
// CheckDriven over ReachedPanes; synchronized windows through
// ReachedPanes and the set_option guards; calls routed here through host
// hops through ReadCallers and HopCallers. The view's input (--view-input,
// destructive tier only) is typed by the person at the page and is the
// one path the guards do not see.
//
// What it does not do: it types nothing and sends no tmux command of its
// own (it reads panes, clients and screens through the supervisor), and
// it knows no tool: the tools (package tools) hold the tool definitions,
// the allow_agent and allow_attended arguments, and turn its errors into
// tool results.
package guard
