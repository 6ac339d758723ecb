# A stand-in for Gemini CLI's input box (run as a copy of python3 named
# gemini, so that the pane reads as Gemini's): the first Enter after each
# paste becomes a new line in the input, as Gemini CLI's does within 40 ms
# of a paste by its own clock (which a busy machine stretches). Every
# submitted prompt is appended to the file argv[1], followed by "---".
# With argv[2] "lagging-backspace" it redraws as a program starved of CPU
# does: a Backspace first redraws the status line only (the new line still
# in the box) and takes the character 0.4 s later; with "deaf-enter" the
# first Enter after a paste is read and dropped, as Gemini CLI starved of
# CPU at its start was seen to (no new line, no redraw); with
# "slow-redraw" a resize clears the screen and the box comes back 1.5 s
# later, as Codex redraws after a split beside a busy machine; with
# "dialog-redraw" it shows a permission question in place of its box
# (Gemini CLI's, below a transcript whose last prompt sits between rules
# as the box's text does), logs the answer key typed into it as
# "answer KEY", and on a resize draws the transcript alone for 0.5 s
# before the question, as Gemini CLI caught between erasing its dialog
# and drawing it again shows.
import os
import signal
import sys
import termios
import time
import tty

RULE_TOP = "\u2584" * 60
RULE_BOTTOM = "\u2580" * 60
fd = sys.stdin.fileno()
saved = termios.tcgetattr(fd)
tty.setraw(fd)
log = open(sys.argv[1], "a")
buf = ""
transcript = []
recent_paste = False
mode = sys.argv[2] if len(sys.argv) > 2 else ""
lagging = mode == "lagging-backspace"
deaf = mode == "deaf-enter"
status = "ready"
asking = mode == "dialog-redraw"
if asking:
    transcript = [RULE_TOP, " > run the command", RULE_BOTTOM]
DIALOG = [
    "\u256d" + "\u2500" * 58 + "\u256e",
    "\u2502 ? Shell  touch marker" + " " * 36 + "\u2502",
    "\u2502 Allow execution of [Shell]?" + " " * 30 + "\u2502",
    "\u2502 \u25cf 1. Allow once" + " " * 41 + "\u2502",
    "\u2502   2. Allow for this session" + " " * 30 + "\u2502",
    "\u2502   3. No, suggest changes (esc)" + " " * 27 + "\u2502",
    "\u2570" + "\u2500" * 58 + "\u256f",
]


def draw():
    # SIGWINCH is held off while the screen is written: its handler writes
    # too, and a handler that runs inside a write to sys.stdout (a write
    # interrupted on a busy machine) dies with "reentrant call inside
    # BufferedWriter", which closed the window under load.
    held = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGWINCH])
    try:
        write_screen()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def write_screen():
    out = ["\x1b[H\x1b[2J", "status: " + status + "\r\n"]
    for line in transcript:
        out.append(line + "\r\n")
    if asking:
        for line in DIALOG:
            out.append(line + "\r\n")
        sys.stdout.write("".join(out))
        sys.stdout.flush()
        return
    out.append(RULE_TOP + "\r\n")
    lines = buf.split("\n") if buf else ["Type your message or @path/to/file"]
    out.append(" > " + lines[0] + "\r\n")
    for line in lines[1:]:
        out.append("   " + line + "\r\n")
    out.append(RULE_BOTTOM + "\r\n")
    sys.stdout.write("".join(out))
    sys.stdout.flush()


def redraw_slowly(signum, frame):
    held = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGWINCH])
    try:
        sys.stdout.write("\x1b[H\x1b[2J")
        sys.stdout.flush()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    time.sleep(1.5)
    draw()


def redraw_dialog(signum, frame):
    held = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGWINCH])
    try:
        out = ["\x1b[H\x1b[2J", "status: " + status + "\r\n"]
        for line in transcript:
            out.append(line + "\r\n")
        sys.stdout.write("".join(out))
        sys.stdout.flush()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    time.sleep(0.5)
    draw()


if mode == "slow-redraw":
    signal.signal(signal.SIGWINCH, redraw_slowly)
if mode == "dialog-redraw":
    signal.signal(signal.SIGWINCH, redraw_dialog)

sys.stdout.write("\x1b[?2004h")
draw()
data = b""
try:
    while True:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
        while data:
            if data.startswith(b"\x1b[200~"):
                end = data.find(b"\x1b[201~")
                if end < 0:
                    break  # the rest of the paste is still to come
                text = data[6:end].decode(errors="replace")
                data = data[end + 6:]
                buf += text.replace("\r\n", "\n").replace("\r", "\n")
                recent_paste = True
                draw()
                continue
            c, data = data[:1], data[1:]
            if asking:
                log.write("answer " + c.decode(errors="replace") + "\n---\n")
                log.flush()
                asking = False
                draw()
                continue
            if c == b"\r":
                if recent_paste and deaf:
                    recent_paste = False
                    continue
                if recent_paste:
                    buf += "\n"
                    recent_paste = False
                elif buf:
                    log.write(buf + "\n---\n")
                    log.flush()
                    transcript.append(" > " + buf.split("\n")[0])
                    transcript.append("\u2726 reply to: " + buf.replace("\n", " ")[:40])
                    buf = ""
                draw()
            elif c == b"\x7f":
                if lagging:
                    status = "busy"
                    draw()
                    time.sleep(0.4)
                    status = "ready"
                buf = buf[:-1]
                draw()
            elif c == b"\x03":
                sys.exit(0)
            else:
                buf += c.decode(errors="replace")
                draw()
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, saved)
