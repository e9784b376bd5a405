-- GET /v1/keys sorts and filters an organization's keys by name, expiry, project and customer (issue 26).
-- CreateIndex
CREATE INDEX "api_keys_organization_id_name_idx" ON "api_keys"("organization_id", "name");

-- CreateIndex
CREATE INDEX "api_keys_organization_id_expires_at_idx" ON "api_keys"("organization_id", "expires_at");

-- CreateIndex
CREATE INDEX "api_keys_organization_id_project_id_idx" ON "api_keys"("organization_id", "project_id");

-- CreateIndex
CREATE INDEX "api_keys_organization_id_customer_id_idx" ON "api_keys"("organization_id", "customer_id");
