import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap } from '../../api/api';
import { jsonRpc, listTools, mcpRequest, searchTools, type CallToolResult, type JsonRpcRequest, type JsonRpcResponse, type McpTool } from '../../api/mcp';
import { ErrorText } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { useHolds, useSession } from '../../components/use-session';
import { SchemaForm } from './schema-form';
import './playground.css';

/** The request and the answer of one JSON-RPC exchange, shown as they went over the wire. */
function Exchange({ request, response, title }: { request: JsonRpcRequest; response: unknown; title: string }) {
  return (
    <details className="exchange">
      <summary>{title}</summary>
      <div className="columns">
        <div>
          <h4>Request</h4>
          <pre tabIndex={0} aria-label={`${title}: request`}>{JSON.stringify(request, null, 2)}</pre>
        </div>
        <div>
          <h4>Response</h4>
          <pre tabIndex={0} aria-label={`${title}: response`}>{JSON.stringify(response, null, 2)}</pre>
        </div>
      </div>
    </details>
  );
}

/** Picks one resource from a server-searched list (first 20 matches). */
function Picker({ label, search, onSearch, options, value, onChange }: { label: string; search: string; onSearch: (s: string) => void; options: Array<{ id: string; text: string }>; value: string; onChange: (id: string) => void }) {
  const slug = label.toLowerCase().replace(/\W+/g, '-');
  return (
    <div className="picker">
      <label htmlFor={`${slug}-search`}>
        Search {label.toLowerCase()}s
        <input id={`${slug}-search`} type="search" value={search} onChange={(e) => onSearch(e.target.value)} />
      </label>
      <label htmlFor={`${slug}-select`}>
        {label}
        <select id={`${slug}-select`} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">Choose a {label.toLowerCase()}</option>
          {options.map((o) => (
            <option key={o.id} value={o.id}>
              {o.text}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

interface CallOutcome {
  request: JsonRpcRequest;
  response: JsonRpcResponse<CallToolResult>;
  startedAt: string;
}

/**
 * /playground: the console acting as an agent of a tool pack for one registered user, through the
 * same MCP endpoint agents call: the tools as tools/list gives them, a call from a form generated from
 * the tool's input schema (or raw JSON), the JSON-RPC exchange, the result's content and isError, and
 * the call's record (its credit, the security rules that fired); tool search with an intent.
 */
export function PlaygroundPage() {
  const session = useSession();
  const [packSearch, setPackSearch] = useState('');
  const [userSearch, setUserSearch] = useState('');
  const [packId, setPackId] = useState('');
  const [userId, setUserId] = useState('');
  const packs = useQuery({
    queryKey: ['tool-packs', session?.environment, 'playground', packSearch],
    queryFn: () => unwrap(api.GET('/api/v1/tool-packs', { params: { query: { search: packSearch || undefined, page_size: '20' } } })),
  });
  const users = useQuery({
    queryKey: ['registered-users', session?.environment, 'playground', userSearch],
    queryFn: () => unwrap(api.GET('/api/v1/registered-users', { params: { query: { search: userSearch || undefined, page_size: '20' } } })),
  });
  const chosen = packId !== '' && userId !== '';
  return (
    <section>
      <h1>Playground</h1>
      <p className="muted">
        Act as an agent: the console calls this tool pack&apos;s MCP endpoint for the registered user you choose, as an agent with a key would. Calls are real: each
        costs one credit and is recorded.
      </p>
      <form className="card" aria-label="Choose the tool pack and registered user" onSubmit={(e) => e.preventDefault()}>
        <div className="grid">
          <Picker
            label="Tool pack"
            search={packSearch}
            onSearch={setPackSearch}
            options={(packs.data?.results ?? []).map((p) => ({ id: p.id, text: p.name }))}
            value={packId}
            onChange={setPackId}
          />
          <Picker
            label="Registered user"
            search={userSearch}
            onSearch={setUserSearch}
            options={(users.data?.results ?? []).map((u) => ({ id: u.id, text: `${u.origin_user_id}${u.origin_user_name ? ` (${u.origin_user_name})` : ''}${u.is_test ? ' · test' : ''}` }))}
            value={userId}
            onChange={setUserId}
          />
        </div>
        <ErrorText error={packs.error ?? users.error} />
      </form>
      {chosen && <PairPlayground key={`${packId}/${userId}`} packId={packId} userId={userId} />}
    </section>
  );
}

function PairPlayground({ packId, userId }: { packId: string; userId: string }) {
  const [listRequest] = useState(() => jsonRpc('tools/list'));
  const tools = useQuery({ queryKey: ['playground', 'tools', packId, userId], queryFn: () => listTools(packId, userId, listRequest), retry: false });
  const [toolName, setToolName] = useState('');
  const list = tools.data?.result?.tools ?? [];
  const tool = list.find((t) => t.name === toolName);
  return (
    <>
      <section className="card" aria-labelledby="tools-heading">
        <h2 id="tools-heading">Tools</h2>
        <ErrorText error={tools.error} />
        {tools.data?.error && <p role="alert" className="error">JSON-RPC error {tools.data.error.code}: {tools.data.error.message}</p>}
        {tools.data && (
          <>
            <div className="table-scroll">
              <table>
                <caption>{list.length} tools, as tools/list returns them to agents</caption>
                <thead>
                  <tr>
                    <th scope="col">Tool</th>
                    <th scope="col">Description</th>
                    <th scope="col">Annotations</th>
                    <th scope="col">
                      <span className="sr-only">Choose</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((t) => (
                    <tr key={t.name} aria-current={t.name === toolName ? 'true' : undefined}>
                      <th scope="row">
                        <code>{t.name}</code>
                      </th>
                      <td>{t.description}</td>
                      <td>{t.annotations ? <code className="details">{JSON.stringify(t.annotations)}</code> : '—'}</td>
                      <td>
                        <button type="button" className="secondary" onClick={() => setToolName(t.name)} aria-pressed={t.name === toolName}>
                          Try {t.name}
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Exchange title="tools/list exchange" request={listRequest} response={tools.data} />
          </>
        )}
      </section>
      {tool && <ToolCall key={tool.name} tool={tool} packId={packId} userId={userId} />}
      <ToolSearch packId={packId} userId={userId} />
    </>
  );
}

function ToolCall({ tool, packId, userId }: { tool: McpTool; packId: string; userId: string }) {
  const queryClient = useQueryClient();
  const [args, setArgs] = useState<unknown>({});
  const [raw, setRaw] = useState(false);
  const [rawText, setRawText] = useState('{}');
  const [rawProblem, setRawProblem] = useState<string | null>(null);
  const call = useMutation({
    mutationFn: async (argumentsValue: unknown): Promise<CallOutcome> => {
      const startedAt = new Date(Date.now() - 1000).toISOString();
      const request = jsonRpc('tools/call', { name: tool.name, arguments: argumentsValue });
      const response = await mcpRequest<CallToolResult>(packId, userId, request);
      return { request, response, startedAt };
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['usage'] }),
  });
  const submit = () => {
    if (!raw) return call.mutate(args);
    try {
      const parsed: unknown = JSON.parse(rawText);
      setRawProblem(null);
      call.mutate(parsed);
    } catch {
      setRawProblem('The arguments are not valid JSON: fix them, or switch back to the form.');
    }
  };
  return (
    <section className="card" aria-labelledby="call-heading">
      <h2 id="call-heading">
        Call <code>{tool.name}</code>
      </h2>
      {tool.description && <p className="muted">{tool.description}</p>}
      <form
        aria-label={`Arguments of ${tool.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label className="check">
          <input
            type="checkbox"
            checked={raw}
            onChange={(e) => {
              if (e.target.checked) setRawText(JSON.stringify(args ?? {}, null, 2));
              else {
                try {
                  setArgs(JSON.parse(rawText));
                } catch {
                  /* keep the form's last value */
                }
              }
              setRaw(e.target.checked);
            }}
          />
          Edit the arguments as raw JSON
        </label>
        {raw ? (
          <label htmlFor="raw-arguments">
            Arguments (JSON)
            <textarea id="raw-arguments" rows={8} value={rawText} onChange={(e) => setRawText(e.target.value)} />
            {rawProblem && <span className="error">{rawProblem}</span>}
          </label>
        ) : (
          <SchemaForm schema={tool.inputSchema} value={args} onChange={setArgs} />
        )}
        <details>
          <summary>Input schema</summary>
          <pre tabIndex={0} aria-label="Input schema">{JSON.stringify(tool.inputSchema, null, 2)}</pre>
        </details>
        <div className="row">
          <GuardedButton permission="manage_tool_packs" type="submit" busy={call.isPending}>
            Call tool
          </GuardedButton>
        </div>
      </form>
      <ErrorText error={call.error} />
      {call.data && <CallResult outcome={call.data} packId={packId} userId={userId} />}
    </section>
  );
}

function CallResult({ outcome, packId, userId }: { outcome: CallOutcome; packId: string; userId: string }) {
  const { request, response } = outcome;
  const result = response.result;
  const canSeeRecords = useHolds('view_tool_call_records');
  const canSeeUsage = useHolds('view_billing');
  // The call's record arrives within a moment: it holds the credit charged and the rules that fired.
  const record = useQuery({
    queryKey: ['playground', 'record', request.id, outcome.startedAt],
    enabled: canSeeRecords,
    queryFn: async () => {
      const page = await unwrap(
        api.GET('/api/v1/tool-call-records', {
          params: { query: { tool_pack_id: packId, registered_user_id: userId, tool_name: String(request.params?.name ?? ''), created_after: outcome.startedAt, page_size: '1' } },
        }),
      );
      const found = page.results[0];
      if (!found) throw new Error('The call is not recorded yet.');
      return unwrap(api.GET('/api/v1/tool-call-records/{record_id}', { params: { path: { record_id: found.id } } }));
    },
    retry: 8,
    retryDelay: 400,
  });
  const usage = useQuery({ queryKey: ['usage', 'playground'], enabled: canSeeUsage, queryFn: () => unwrap(api.GET('/api/v1/usage')) });
  return (
    <div className="call-result" aria-live="polite">
      <h3>Result</h3>
      {response.error ? (
        <p role="alert" className="error">
          JSON-RPC error {response.error.code}: {response.error.message}
        </p>
      ) : (
        <>
          <p>
            isError: <strong data-testid="is-error">{String(result?.isError ?? false)}</strong>
          </p>
          <ul className="content-items" aria-label="Content">
            {(result?.content ?? []).map((item, i) => (
              <li key={i}>
                <span className="badge">{item.type}</span> <pre tabIndex={0} aria-label={`Content item ${i + 1}`}>{item.type === 'text' ? item.text : JSON.stringify(item, null, 2)}</pre>
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Credit and security rules</h3>
      {!canSeeRecords && <p className="muted">Your role cannot read tool-call records (view_tool_call_records), so the call&apos;s record is not shown. Every tools/call costs one credit.</p>}
      {record.isPending && canSeeRecords && <p role="status">Waiting for the call&apos;s record…</p>}
      {record.error && <ErrorText error={record.error} />}
      {record.data && (
        <dl className="facts">
          <dt>Credits</dt>
          <dd data-testid="call-credits">
            {record.data.credits} credit{record.data.credits === 1 ? '' : 's'}
            {record.data.overage ? ' (overage)' : ''}, cycle {record.data.billing_cycle}
          </dd>
          <dt>Status</dt>
          <dd>
            {record.data.status}
            {record.data.error_code ? ` (${record.data.error_code})` : ''} in {record.data.duration_ms} ms
          </dd>
          <dt>Security rules that fired</dt>
          <dd data-testid="call-detections">
            {record.data.detections.length === 0
              ? 'none'
              : record.data.detections.map((d, i) => (
                  <span key={i} className="detection">
                    {d.rule_name} ({d.kind}, {d.direction}, {d.action} at {d.path}
                    {d.count > 1 ? ` ×${d.count}` : ''})
                  </span>
                ))}
          </dd>
          <dt>Record</dt>
          <dd>
            <Link to="/tool-call-records/$id" params={{ id: record.data.id }}>
              Tool-call record {record.data.id}
            </Link>
          </dd>
        </dl>
      )}
      {usage.data && (
        <p data-testid="cycle-credits">
          This cycle: {usage.data.credits_used} of {usage.data.monthly_credits} credits used ({usage.data.plan} plan). <Link to="/credits">Credits</Link>
        </p>
      )}
      <Exchange title="tools/call exchange" request={request} response={response} />
    </div>
  );
}

function ToolSearch({ packId, userId }: { packId: string; userId: string }) {
  const [intent, setIntent] = useState('');
  const search = useMutation({ mutationFn: (asked: string) => searchTools(packId, userId, { intent: asked, max_results: 10 }) });
  return (
    <section className="card" aria-labelledby="search-heading">
      <h2 id="search-heading">Tool search</h2>
      <form
        className="row"
        aria-label="Search the tools for an intent"
        onSubmit={(e) => {
          e.preventDefault();
          if (intent.trim()) search.mutate(intent.trim());
        }}
      >
        <label htmlFor="intent" className="inline">
          Intent
          <input id="intent" value={intent} maxLength={500} placeholder="e.g. open a ticket about a bug" onChange={(e) => setIntent(e.target.value)} />
        </label>
        <button type="submit" disabled={search.isPending}>
          Search tools
        </button>
      </form>
      <ErrorText error={search.error} />
      {search.data && (
        <div className="table-scroll">
          <table>
            <caption>
              {search.data.total_results} tools ranked for “{search.data.intent}”
            </caption>
            <thead>
              <tr>
                <th scope="col">Rank</th>
                <th scope="col">Tool</th>
                <th scope="col">Relevance</th>
                <th scope="col">Reasoning</th>
              </tr>
            </thead>
            <tbody>
              {search.data.tools.map((t, i) => (
                <tr key={t.fully_qualified_name}>
                  <td>{i + 1}</td>
                  <th scope="row">
                    <code>{t.fully_qualified_name}</code>
                  </th>
                  <td>{t.relevance_score.toFixed(2)}</td>
                  <td>{t.reasoning}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
