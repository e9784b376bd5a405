import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { modelsQueryKey } from './models';

const vendorKeysQueryKey = ['vendor-keys'] as const;

/**
 * /vendor-keys: bring your own vendor keys (GET/PUT/DELETE /v1/vendor-keys). Write-only: the gateway
 * never returns a key, only its last four characters; the field is cleared once saved.
 */
export function VendorKeysPage() {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: vendorKeysQueryKey, queryFn: () => unwrap(api.GET('/v1/vendor-keys')) });
  // The vendors the catalog names, as suggestions (the gateway answers which of them take your own key).
  const catalog = useQuery({ queryKey: [...modelsQueryKey, ''], queryFn: () => unwrap(api.GET('/v1/models')), staleTime: 300_000 });
  const vendors = [...new Set((catalog.data?.data ?? []).flatMap((m) => Object.keys(m.vendors)))].sort();
  const save = useMutation({
    mutationFn: ({ vendor, body }: { vendor: string; body: GatewaySchemas['VendorKeyPut'] }) => unwrap(api.PUT('/v1/vendor-keys/{vendor}', { params: { path: { vendor } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: vendorKeysQueryKey }),
  });
  return (
    <section>
      <h1>Vendor keys</h1>
      <p className="muted">Your own keys for model vendors: requests to a vendor with your key are billed by the vendor to you, not from your gateway credit. A key is never shown again once saved, only its last four characters.</p>
      <form
        className="card"
        aria-label="Set a vendor key"
        autoComplete="off"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const f = new FormData(form);
          const baseUrl = String(f.get('base_url') ?? '').trim();
          save.mutate({ vendor: String(f.get('vendor') ?? '').trim(), body: { api_key: String(f.get('api_key') ?? ''), base_url: baseUrl || null } }, { onSuccess: () => form.reset() });
        }}
      >
        <h2>Set a vendor key</h2>
        <div className="grid">
          <label>
            Vendor
            <input name="vendor" required list="vendor-choices" placeholder="openai" />
            <datalist id="vendor-choices">
              {vendors.map((v) => (
                <option key={v} value={v} />
              ))}
            </datalist>
          </label>
          <label>
            API key (write-only)
            <input name="api_key" type="password" required autoComplete="new-password" />
          </label>
          <label>
            Base URL (self-hosted vendors; optional)
            <input name="base_url" type="url" placeholder="https://llm.example.com/v1" />
          </label>
        </div>
        <ErrorText error={save.error} />
        <GuardedButton permission="manage_vendor_keys" type="submit" busy={save.isPending}>
          Save vendor key
        </GuardedButton>
      </form>
      <ErrorText error={keys.error} />
      {keys.data && (
        <div className="table-scroll">
          <table>
            <caption>{keys.data.data.length === 0 ? 'No vendor keys of your own: the platform keys serve every request' : 'Your vendor keys'}</caption>
            <thead>
              <tr>
                <th scope="col">Vendor</th>
                <th scope="col">Key</th>
                <th scope="col">Base URL</th>
                <th scope="col">Updated</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((k) => (
                <VendorKeyRow key={k.vendor} vendorKey={k} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function VendorKeyRow({ vendorKey: k }: { vendorKey: GatewaySchemas['VendorKey'] }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/v1/vendor-keys/{vendor}', { params: { path: { vendor: k.vendor } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: vendorKeysQueryKey }),
  });
  return (
    <tr>
      <th scope="row">{k.vendor}</th>
      <td>
        <code>…{k.key_last4}</code>
      </td>
      <td>{k.base_url ?? 'The vendor’s own'}</td>
      <td>{formatTime(k.updated_at)}</td>
      <td>
        <GuardedButton permission="manage_vendor_keys" className="danger" busy={remove.isPending} aria-label={`Remove the ${k.vendor} key`} onClick={() => remove.mutate()}>
          Remove
        </GuardedButton>
        <ErrorText error={remove.error} />
      </td>
    </tr>
  );
}
