"""What makes a test fail, and the errors a user can act on (each run in its own pytest)."""

import os
import shutil
import socket
import textwrap
from pathlib import Path

import pytest

TRACES = Path(__file__).parent / "traces"

HELLO = textwrap.dedent("""
    import httpx

    def hello(mockllm, content="Say hello."):
        return httpx.post(mockllm.base_url + "/chat/completions", headers=mockllm.headers,
                          json={"model": "gpt-4o-mini",
                                "messages": [{"role": "user", "content": content}]}, timeout=30)
""")


@pytest.fixture
def project(pytester):
    shutil.copytree(TRACES, pytester.path / "traces")
    pytester.makepyfile(helpers=HELLO)
    return pytester


def run(pytester, *args):
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def test_a_refused_request_fails_the_test(project):
    project.makepyfile(test_it="""
        import pytest
        from helpers import hello

        @pytest.mark.mockllm(traces="traces")
        def test_unknown_question(mockllm):
            assert hello(mockllm, "Something never recorded").status_code == 404
    """)
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*mockllm refused request #* POST /v1/chat/completions: no_match*"])


def test_refusals_can_be_allowed(project):
    project.makepyfile(test_it="""
        import pytest
        from helpers import hello

        @pytest.mark.mockllm(traces="traces", fail_on_unmatched=False)
        def test_unknown_question(mockllm):
            assert hello(mockllm, "Something never recorded").status_code == 404
            [entry] = mockllm.unmatched()
            assert entry["findings"][0]["rule"] == "no_match"
    """)
    run(project).assert_outcomes(passed=1)


def test_an_unused_pinned_trace_fails_the_test_unless_allowed_in_the_ini(project):
    project.makepyfile(test_it="""
        import pytest

        @pytest.mark.mockllm(traces="traces", pin="weather")
        def test_never_asks(mockllm):
            pass
    """)
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*pinned trace 'weather' was never requested*"])
    project.makeini("[pytest]\nmockllm_fail_on_unused = false\n")
    run(project).assert_outcomes(passed=1)


def test_a_half_used_trace_fails_the_test(project):
    project.makepyfile(test_it="""
        import httpx, pytest

        @pytest.mark.mockllm(traces="traces", pin="weather")
        def test_stops_after_the_tool_call(mockllm):
            body = {"model": "gpt-4o-mini",
                    "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
                    "tools": [{"type": "function", "function": {
                        "name": "get_weather", "description": "Current weather of a city.",
                        "parameters": {"type": "object",
                                       "properties": {"city": {"type": "string"}},
                                       "required": ["city"]}}}]}
            r = httpx.post(mockllm.base_url + "/chat/completions", json=body,
                           headers=mockllm.headers, timeout=30)
            assert r.status_code == 200
    """)
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*trace 'weather': exchanges [[]1[]] were never requested*"])


def test_per_test_scope_starts_a_server_per_test(project):
    project.makepyfile(test_it="""
        import pytest
        from helpers import hello

        urls = []

        @pytest.mark.parametrize("n", [1, 2])
        @pytest.mark.mockllm(traces="traces", scope="test")
        def test_hello(mockllm, n):
            assert hello(mockllm).status_code == 200
            urls.append(mockllm.url)
            assert len(mockllm.journal()) == 1

        def test_two_servers():
            assert len(set(urls)) == 2
    """)
    run(project).assert_outcomes(passed=3)


def test_session_scope_shares_one_server(project):
    project.makepyfile(test_it="""
        import pytest
        from helpers import hello

        urls = []

        @pytest.mark.parametrize("n", [1, 2])
        @pytest.mark.mockllm(traces="traces")
        def test_hello(mockllm, n):
            assert hello(mockllm).status_code == 200
            urls.append(mockllm.url)
            assert len(mockllm.journal()) == 1  # this test's request only

        def test_one_server():
            assert len(set(urls)) == 1
    """)
    run(project).assert_outcomes(passed=3)


def test_binary_not_found_says_how_to_get_it(project, monkeypatch):
    monkeypatch.delenv("MOCKLLM_BIN", raising=False)
    monkeypatch.setenv("PATH", str(project.path))  # no mockllm there
    project.makepyfile(test_it="""
        def test_x(mockllm):
            pass
    """)
    result = run(project)
    result.assert_outcomes(errors=1)
    if not os.path.exists("/usr/bin/mockllm"):
        result.stdout.fnmatch_lines(["*the mockllm program was not found*MOCKLLM_BIN=*"])


def test_a_broken_trace_is_named_with_line_and_column(project):
    (project.path / "broken").mkdir()
    (project.path / "broken" / "bad.trace.jsonl").write_text(
        '{"format":"llmconform-trace/1","id":"bad"}\n'
        '{"seq":1,"request":{"method":"POST"},"response":{"status":200}}\n')
    project.makepyfile(test_it="""
        import pytest

        @pytest.mark.mockllm(traces="broken")
        def test_x(mockllm):
            pass
    """)
    result = run(project)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*mockllm cannot load the traces*", "*bad.trace.jsonl:2:*"])


def test_a_port_clash_is_reported(project):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        project.makepyfile(test_it=f"""
            import pytest

            @pytest.mark.mockllm(traces="traces", port={port})
            def test_x(mockllm):
                pass
        """)
        result = run(project)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*mockllm cannot listen on port {port}*", "*port 0*"])


def test_record_rewrites_the_trace_through_mockllm_record(project, mockllm_binary):
    # The "real upstream" is another mockllm replaying the hello trace.
    from pytest_mockllm import Mockllm

    upstream = Mockllm(binary=mockllm_binary, traces=[str(TRACES / "hello.trace.jsonl")]).start()
    try:
        (project.path / "cassettes").mkdir()
        project.makepyfile(test_it="""
            import pytest
            from helpers import hello

            @pytest.mark.mockllm(traces="cassettes")
            def test_hello(mockllm):
                r = hello(mockllm)
                assert r.status_code == 200
                assert r.json()["choices"][0]["message"]["content"] == "Hello!"
        """)
        run(project, "--mockllm-record", f"--mockllm-upstream={upstream.url}",
            ).assert_outcomes(passed=1)
    finally:
        upstream.close()
    recorded = project.path / "cassettes" / "test_hello.trace.jsonl"
    assert recorded.exists()
    assert '"Hello!"' in recorded.read_text()
    # Replaying the new recording passes (it is a valid, complete trace).
    run(project).assert_outcomes(passed=1)
