import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { SecretOnce } from '../../components/secret-once';
import { Pager } from '../members';
import { SpendAgainstLimit, gatewayKeysQueryKey } from './keys';
import { usdOrNull } from './money';

const PAGE_SIZE = 20;

/**
 * /customers/$customerId/api-keys: a customer's keys (GET /v1/customers/{id}/api-keys), each with its
 * rate limit in requests per minute and its spend against its limit; create one (secret shown once).
 */
export function CustomerKeysPage() {
  const { customerId = '' } = useParams({ strict: false }) as { customerId?: string };
  const [page, setPage] = useState(1);
  const [secret, setSecret] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const customer = useQuery({ queryKey: ['customers', customerId], queryFn: () => unwrap(api.GET('/v1/customers/{customer_id}', { params: { path: { customer_id: customerId } } })) });
  const keys = useQuery({
    queryKey: [...gatewayKeysQueryKey, 'customer', customerId, page],
    queryFn: () => unwrap(api.GET('/v1/customers/{customer_id}/api-keys', { params: { path: { customer_id: customerId }, query: { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE } } })),
  });
  const create = useMutation({
    mutationFn: (body: GatewaySchemas['CustomerKeyCreate']) => unwrap(api.POST('/v1/customers/{customer_id}/api-keys', { params: { path: { customer_id: customerId } }, body })),
    onSuccess: async (key) => {
      setSecret(key.key);
      await queryClient.invalidateQueries({ queryKey: gatewayKeysQueryKey });
    },
  });
  const name = customer.data?.name ?? customerId;
  return (
    <section>
      <p>
        <Link to="/customers">All customers</Link>
      </p>
      <h1>Keys of {name}</h1>
      <ErrorText error={customer.error} />
      <form
        className="card"
        aria-label="Create a customer key"
        onSubmit={(event) => {
          event.preventDefault();
          const f = new FormData(event.currentTarget);
          const rpm = String(f.get('rate_limit_rpm') ?? '').trim();
          const limit = usdOrNull(f.get('limit'));
          create.mutate({ name: String(f.get('name') ?? '') || null, limit, limit_reset: limit === null ? null : 'monthly', rate_limit_rpm: rpm === '' ? null : Number(rpm) });
        }}
      >
        <h2>Create a customer key</h2>
        <div className="grid">
          <label>
            Key name
            <input name="name" maxLength={255} />
          </label>
          <label>
            Rate limit (requests per minute, blank for none)
            <input name="rate_limit_rpm" type="number" min="1" step="1" />
          </label>
          <label>
            Spend limit per month (USD, blank for none)
            <input name="limit" type="number" min="0" step="any" />
          </label>
        </div>
        <ErrorText error={create.error} />
        <GuardedButton permission="manage_customers" type="submit" busy={create.isPending}>
          Create customer key
        </GuardedButton>
      </form>
      {secret && <SecretOnce label={`Key of ${name}.`} value={secret} onDone={() => setSecret(null)} />}
      <ErrorText error={keys.error} />
      {keys.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>{keys.data.total} keys of this customer</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Rate limit</th>
                  <th scope="col">Spend against limit</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {keys.data.data.map((k) => (
                  <tr key={k.hash}>
                    <th scope="row">
                      {k.name ?? <span className="muted">Unnamed</span>} <code>{k.label}</code>
                    </th>
                    <td>{k.rate_limit_rpm === null ? 'None' : `${k.rate_limit_rpm} requests per minute`}</td>
                    <td>
                      <SpendAgainstLimit k={k} />
                    </td>
                    <td>{k.disabled ? 'Disabled' : 'Active'}</td>
                    <td>{formatTime(k.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={page * PAGE_SIZE < keys.data.total} onPage={setPage} />
        </>
      )}
    </section>
  );
}
