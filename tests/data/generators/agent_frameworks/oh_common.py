"""Helpers to build OpenHands V0 event streams."""
import datetime as dt
import hashlib


def cat_n(text, start=1, end=None):
    lines = text.rstrip("\n").split("\n")
    end = end or len(lines)
    return "\n".join(f"{i:6}\t{lines[i - 1]}" for i in range(start, min(end, len(lines)) + 1))


class Stream:
    def __init__(self, start: str, model: str, workdir: str, seed: str):
        self.events = []
        self.t = dt.datetime.fromisoformat(start)
        self.model = model
        self.wd = workdir
        self.seed = seed
        self.n_calls = 0
        self.prompt = 6200
        self.cost = 0.0
        self.ptok = 0
        self.ctok = 0

    def _ts(self, secs):
        self.t += dt.timedelta(seconds=secs)
        return self.t.isoformat(timespec="microseconds")

    def _id(self):
        return len(self.events)

    def system(self, content):
        self.events.append({"id": self._id(), "timestamp": self._ts(0), "source": "agent",
                            "message": content, "action": "system",
                            "args": {"content": content, "tools": None, "openhands_version": "0.39.1",
                                     "agent_class": "CodeActAgent"}})

    def user(self, content):
        self.events.append({"id": self._id(), "timestamp": self._ts(0.4), "source": "user", "message": content,
                            "action": "message",
                            "args": {"content": content, "image_urls": None, "file_urls": None,
                                     "wait_for_response": False}})

    def recall(self, query):
        aid = self._id()
        self.events.append({"id": aid, "timestamp": self._ts(0.01), "source": "user", "message": "Retrieving content for: " + query[:40],
                            "action": "recall", "args": {"recall_type": "workspace_context", "query": query, "thought": ""}})
        self.events.append({"id": self._id(), "timestamp": self._ts(0.02), "source": "environment", "message": "Added workspace context",
                            "cause": aid, "observation": "recall", "content": "Added workspace context",
                            "extras": {"recall_type": "workspace_context", "repo_name": "", "repo_directory": "",
                                       "repo_instructions": "", "runtime_hosts": {"http://localhost:51234": 51234},
                                       "additional_agent_instructions": "", "date": self.t.date().isoformat(),
                                       "custom_secrets_descriptions": {}, "conversation_instructions": "",
                                       "microagent_knowledge": []}})

    def state(self, state, reason=""):
        self.events.append({"id": self._id(), "timestamp": self._ts(0.05), "source": "environment", "message": "",
                            "observation": "agent_state_changed", "content": "",
                            "extras": {"agent_state": state, "reason": reason}})

    def _tcm(self, fn, out_tokens):
        self.n_calls += 1
        self.prompt += 900 + (self.n_calls * 311) % 1700
        h = hashlib.sha1(f"{self.seed}-{self.n_calls}".encode()).hexdigest()
        self.ptok += self.prompt
        self.ctok += out_tokens
        self.cost += self.prompt * 3e-6 + out_tokens * 15e-6
        return {"function_name": fn, "tool_call_id": "toolu_01" + h[:22],
                "model_response": {"id": "chatcmpl-" + h[22:38], "created": int(self.t.timestamp()),
                                   "model": self.model, "object": "chat.completion",
                                   "usage": {"completion_tokens": out_tokens, "prompt_tokens": self.prompt,
                                             "total_tokens": self.prompt + out_tokens}},
                "total_calls_in_response": 1}

    def _metrics(self):
        return {"accumulated_cost": round(self.cost, 6),
                "accumulated_token_usage": {"model": self.model, "prompt_tokens": self.ptok,
                                            "completion_tokens": self.ctok, "cache_read_tokens": 0,
                                            "cache_write_tokens": 0, "response_id": ""}}

    def _action(self, fn, action, args, message, out_tokens, think_secs):
        aid = self._id()
        ev = {"id": aid, "timestamp": self._ts(think_secs), "source": "agent", "message": message, "action": action,
              "tool_call_metadata": self._tcm(fn, out_tokens), "llm_metrics": self._metrics(), "args": args}
        self.events.append(ev)
        return aid, ev["tool_call_metadata"]

    def _obs(self, aid, tcm, kind, content, extras, secs, message=None):
        self.events.append({"id": self._id(), "timestamp": self._ts(secs), "source": "environment",
                            "message": message or content[:80], "cause": aid, "observation": kind, "content": content,
                            "extras": extras, "tool_call_metadata": tcm, "success": kind != "error"})

    def run(self, command, output, code=0, thought="", out_tokens=120, secs=1.2, think_secs=6.0):
        aid, tcm = self._action("execute_bash", "run",
                                {"command": command, "is_input": False, "thought": thought, "blocking": False,
                                 "is_static": False, "cwd": None, "hidden": False, "confirmation_state": "confirmed",
                                 "security_risk": None},
                                f"Running command: {command}", out_tokens, think_secs)
        suffix = f"\n[The command completed with exit code {code}.]" if code != -1 else \
            "\n[The command has no new output after 30 seconds. You may wait longer to see additional output by sending empty command '', send other commands to interact with the current process, or send keys to interrupt/kill the command.]"
        self._obs(aid, tcm, "run", output,
                  {"command": command,
                   "metadata": {"exit_code": code, "pid": -1, "username": "root", "hostname": "runtime-7f3c2b",
                                "working_dir": self.wd, "py_interpreter_path": "/opt/miniconda3/envs/testbed/bin/python",
                                "prefix": "", "suffix": suffix},
                   "hidden": False}, secs, message=f"Command `{command}` executed with exit code {code}.")

    def view(self, path, content, thought="", view_range=None, out_tokens=90, think_secs=4.0):
        aid, tcm = self._action("str_replace_editor", "read",
                                {"path": path, "start": 0, "end": -1, "thought": thought, "security_risk": None,
                                 "impl_source": "oh_aci", "view_range": view_range},
                                f"Reading file: {path}", out_tokens, think_secs)
        self._obs(aid, tcm, "read", content, {"path": path, "impl_source": "oh_aci"}, 0.1,
                  message=f"I read the file {path}.")

    def edit(self, path, old, new, result, thought="", out_tokens=260, think_secs=9.0, error=None):
        aid, tcm = self._action("str_replace_editor", "edit",
                                {"path": path, "command": "str_replace", "file_text": None, "old_str": old,
                                 "new_str": new, "insert_line": None, "content": "", "start": 1, "end": -1,
                                 "thought": thought, "security_risk": None, "impl_source": "oh_aci"},
                                f"Editing file: {path}", out_tokens, think_secs)
        if error:
            self._obs(aid, tcm, "error", error, {"error_id": ""}, 0.1)
        else:
            self._obs(aid, tcm, "edit", result,
                      {"path": path, "prev_exist": False, "old_content": old, "new_content": new,
                       "impl_source": "oh_aci", "diff": "", "_diff_cache": None}, 0.1,
                      message=f"I edited the file {path}.")

    def create(self, path, text, thought="", out_tokens=400, think_secs=12.0):
        aid, tcm = self._action("str_replace_editor", "edit",
                                {"path": path, "command": "create", "file_text": text, "old_str": None,
                                 "new_str": None, "insert_line": None, "content": "", "start": 1, "end": -1,
                                 "thought": thought, "security_risk": None, "impl_source": "oh_aci"},
                                f"Editing file: {path}", out_tokens, think_secs)
        self._obs(aid, tcm, "edit", f"File created successfully at: {path}",
                  {"path": path, "prev_exist": False, "old_content": None, "new_content": text,
                   "impl_source": "oh_aci", "diff": "", "_diff_cache": None}, 0.1,
                  message=f"I edited the file {path}.")

    def think(self, thought, out_tokens=300, think_secs=10.0):
        aid, tcm = self._action("think", "think", {"thought": thought}, thought, out_tokens, think_secs)
        self._obs(aid, tcm, "think", "Your thought has been logged.", {}, 0.01)

    def finish(self, final_thought, out_tokens=200, think_secs=5.0):
        self._action("finish", "finish", {"final_thought": final_thought, "task_completed": "true", "outputs": {},
                                          "thought": ""}, final_thought, out_tokens, think_secs)

    def metrics(self):
        return {"accumulated_cost": round(self.cost, 6),
                "accumulated_token_usage": {"model": self.model, "prompt_tokens": self.ptok,
                                            "completion_tokens": self.ctok, "cache_read_tokens": 0,
                                            "cache_write_tokens": 0, "response_id": ""},
                "costs": [], "response_latencies": [], "token_usages": []}


SYSTEM = """You are OpenHands agent, a helpful AI assistant that can interact with a computer to solve tasks.

<ROLE>
Your primary role is to assist users by executing commands, modifying code, and solving technical problems effectively. You should be thorough, methodical, and prioritize quality over speed.
* If the user asks a question, like "why is X happening", don't try to fix the problem. Just give an answer to the question.
</ROLE>

<EFFICIENCY>
* Each action you take is somewhat expensive. Wherever possible, combine multiple actions into a single action.
</EFFICIENCY>

<PROBLEM_SOLVING_WORKFLOW>
1. EXPLORATION: Thoroughly explore relevant files and understand the context before proposing solutions
2. ANALYSIS: Consider multiple approaches and select the most promising one
3. TESTING: For bug fixes, create tests to verify issues before implementing fixes
4. IMPLEMENTATION: Make focused, minimal changes to address the problem
5. VERIFICATION: Test your implementation thoroughly, including edge cases
</PROBLEM_SOLVING_WORKFLOW>"""


def instruction(workspace, issue):
    return f"""<uploaded_files>
/workspace/{workspace}
</uploaded_files>

I've uploaded a python code repository in the directory {workspace}. Consider the following issue description:

<issue_description>
{issue}
</issue_description>

Can you help me implement the necessary changes to the repository so that the requirements specified in the <issue_description> are met?
I've already taken care of all changes to any of the test files described in the <issue_description>. This means you DON'T have to modify the testing logic or any of the tests in any way!
Your task is to make the minimal changes to non-test files in the /workspace/{workspace} directory to ensure the <issue_description> is satisfied.

Follow these phases to resolve the issue:
Phase 1. READING: read the problem and reword it in clearer terms
Phase 2. RUNNING: install and run the tests on the repository
Phase 3. EXPLORATION: find the files that are related to the problem and possible solutions
Phase 4. TEST CREATE: create a script to reproduce and verify the issue
Phase 5. FIX ANALYSIS: state clearly the problem and how to fix it
Phase 6. FIX IMPLEMENTATION: edit the source code to implement your chosen solution
Phase 7. VERIFICATION: test your implementation thoroughly
Phase 8. FINAL REVIEW: carefully re-read the problem description and compare your changes with it
Be thorough in your exploration, testing, and reasoning. It's fine if your thinking process is lengthy - quality and completeness are more important than brevity."""
