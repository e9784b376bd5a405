import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { Pager } from '../members';
import { formatUsd, spentOfBudget, usdOrNull } from './money';

export const customersQueryKey = ['customers'] as const;
const PAGE_SIZE = 20;

/**
 * /customers: your customers as the gateway knows them (GET /v1/customers, newest first, paged), each
 * with its budget (USD, all time), what it drew on it, and its active flag; create, change, delete (with its keys), and each
 * customer's keys on its own page.
 */
export function CustomersPage() {
  const [page, setPage] = useState(1);
  const customers = useQuery({ queryKey: [...customersQueryKey, page], queryFn: () => unwrap(api.GET('/v1/customers', { params: { query: { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE } } })) });
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (body: GatewaySchemas['CustomerCreate']) => unwrap(api.POST('/v1/customers', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: customersQueryKey }),
  });
  return (
    <section>
      <h1>Customers</h1>
      <p className="muted">A customer&apos;s keys spend its budget; an inactive customer&apos;s keys are refused.</p>
      <form
        className="card"
        aria-label="Create a customer"
        onSubmit={(event) => {
          event.preventDefault();
          const f = new FormData(event.currentTarget);
          create.mutate({ id: String(f.get('id') ?? '').trim() || crypto.randomUUID(), name: String(f.get('name') ?? '') || null, budget: usdOrNull(f.get('budget')) });
          event.currentTarget.reset();
        }}
      >
        <h2>Create a customer</h2>
        <div className="grid">
          <label>
            Customer id (your UUID; blank for a new one)
            <input name="id" pattern="[0-9a-fA-F-]{36}" />
          </label>
          <label>
            Customer name
            <input name="name" maxLength={255} />
          </label>
          <label>
            Budget (USD, blank for none)
            <input name="budget" type="number" min="0" step="any" />
          </label>
        </div>
        <ErrorText error={create.error} />
        <GuardedButton permission="manage_customers" type="submit" busy={create.isPending}>
          Create customer
        </GuardedButton>
      </form>
      <ErrorText error={customers.error} />
      {customers.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>Customers, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Customer</th>
                  <th scope="col">Budget</th>
                  <th scope="col">Spent</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {customers.data.data.map((c) => (
                  <CustomerRow key={c.id} customer={c} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={customers.data.data.length === PAGE_SIZE} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function CustomerRow({ customer: c }: { customer: GatewaySchemas['Customer'] }) {
  const queryClient = useQueryClient();
  const [budget, setBudget] = useState(c.budget === null ? '' : String(c.budget));
  const name = c.name ?? c.id;
  const refresh = () => queryClient.invalidateQueries({ queryKey: customersQueryKey });
  const update = useMutation({ mutationFn: (body: GatewaySchemas['CustomerUpdate']) => unwrap(api.PATCH('/v1/customers/{customer_id}', { params: { path: { customer_id: c.id } }, body })), onSuccess: refresh });
  const remove = useMutation({ mutationFn: () => unwrap(api.DELETE('/v1/customers/{customer_id}', { params: { path: { customer_id: c.id } } })), onSuccess: refresh });
  return (
    <tr>
      <th scope="row">
        <Link to="/customers/$customerId/api-keys" params={{ customerId: c.id }}>
          {name}
        </Link>
        <br />
        <code className="muted">{c.id}</code>
      </th>
      <td>
        <div className="row">
          <label className="inline">
            <span className="sr-only">Budget of {name} (USD)</span>
            <input type="number" min="0" step="any" value={budget} placeholder="none" onChange={(e) => setBudget(e.target.value)} />
          </label>
          <GuardedButton permission="manage_customers" className="secondary" busy={update.isPending} aria-label={`Save the budget of ${name}`} onClick={() => update.mutate({ budget: budget.trim() === '' ? null : Number(budget) })}>
            Save
          </GuardedButton>
        </div>
        <span className="muted">Now: {c.budget === null ? 'no budget' : formatUsd(c.budget)}</span>
      </td>
      <td>{spentOfBudget(c.spent, c.budget)}</td>
      <td>{c.active ? 'Active' : 'Inactive'}</td>
      <td>{formatTime(c.created_at)}</td>
      <td>
        <div className="row">
          <GuardedButton permission="manage_customers" className="secondary" aria-label={`${c.active ? 'Deactivate' : 'Activate'} ${name}`} onClick={() => update.mutate({ active: !c.active })}>
            {c.active ? 'Deactivate' : 'Activate'}
          </GuardedButton>
          <GuardedButton permission="manage_customers" className="danger" busy={remove.isPending} aria-label={`Delete ${name} and its keys`} onClick={() => remove.mutate()}>
            Delete
          </GuardedButton>
        </div>
        <ErrorText error={update.error ?? remove.error} />
      </td>
    </tr>
  );
}
