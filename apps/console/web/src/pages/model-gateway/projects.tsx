import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { Pager } from '../members';
import { formatUsd, spentOfBudget, usdOrNull } from './money';

const projectsQueryKey = ['projects'] as const;
const PAGE_SIZE = 20;

/** /projects: the gateway's projects (GET /v1/projects, newest first, paged) with their budgets and what they drew on them; create, change the budget, delete. */
export function ProjectsPage() {
  const [page, setPage] = useState(1);
  const projects = useQuery({ queryKey: [...projectsQueryKey, page], queryFn: () => unwrap(api.GET('/v1/projects', { params: { query: { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE } } })) });
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (body: GatewaySchemas['ProjectCreate']) => unwrap(api.POST('/v1/projects', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectsQueryKey }),
  });
  return (
    <section>
      <h1>Projects</h1>
      <p className="muted">A key made in a project spends the project&apos;s budget (USD, all time) as well as its own limit.</p>
      <form
        className="card"
        aria-label="Create a project"
        onSubmit={(event) => {
          event.preventDefault();
          const f = new FormData(event.currentTarget);
          create.mutate({ name: String(f.get('name') ?? ''), budget: usdOrNull(f.get('budget')) });
          event.currentTarget.reset();
        }}
      >
        <h2>Create a project</h2>
        <div className="grid">
          <label>
            Project name
            <input name="name" required maxLength={255} />
          </label>
          <label>
            Budget (USD, blank for none)
            <input name="budget" type="number" min="0" step="any" />
          </label>
        </div>
        <ErrorText error={create.error} />
        <GuardedButton permission="manage_projects" type="submit" busy={create.isPending}>
          Create project
        </GuardedButton>
      </form>
      <ErrorText error={projects.error} />
      {projects.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>Projects, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Id</th>
                  <th scope="col">Budget</th>
                  <th scope="col">Spent</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {projects.data.data.map((p) => (
                  <ProjectRow key={p.id} project={p} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={projects.data.data.length === PAGE_SIZE} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function ProjectRow({ project: p }: { project: GatewaySchemas['Project'] }) {
  const queryClient = useQueryClient();
  const [budget, setBudget] = useState(p.budget === null ? '' : String(p.budget));
  const refresh = () => queryClient.invalidateQueries({ queryKey: projectsQueryKey });
  const save = useMutation({ mutationFn: () => unwrap(api.PATCH('/v1/projects/{id}', { params: { path: { id: p.id } }, body: { budget: budget.trim() === '' ? null : Number(budget) } })), onSuccess: refresh });
  const remove = useMutation({ mutationFn: () => unwrap(api.DELETE('/v1/projects/{id}', { params: { path: { id: p.id } } })), onSuccess: refresh });
  return (
    <tr>
      <th scope="row">{p.name}</th>
      <td>
        <code>{p.id}</code>
      </td>
      <td>
        <div className="row">
          <label className="inline">
            <span className="sr-only">Budget of {p.name} (USD)</span>
            <input type="number" min="0" step="any" value={budget} placeholder="none" onChange={(e) => setBudget(e.target.value)} />
          </label>
          <GuardedButton permission="manage_projects" className="secondary" busy={save.isPending} aria-label={`Save the budget of ${p.name}`} onClick={() => save.mutate()}>
            Save
          </GuardedButton>
        </div>
        <span className="muted">Now: {p.budget === null ? 'no budget' : formatUsd(p.budget)}</span>
      </td>
      <td>{spentOfBudget(p.spent, p.budget)}</td>
      <td>{formatTime(p.created_at)}</td>
      <td>
        <GuardedButton permission="manage_projects" className="danger" busy={remove.isPending} aria-label={`Delete ${p.name}`} onClick={() => remove.mutate()}>
          Delete
        </GuardedButton>
        <ErrorText error={save.error ?? remove.error} />
      </td>
    </tr>
  );
}
