-- CreateIndex
CREATE INDEX "connections_organization_id_environment_auth_scope_company__idx" ON "connections"("organization_id", "environment", "auth_scope", "company_id");
