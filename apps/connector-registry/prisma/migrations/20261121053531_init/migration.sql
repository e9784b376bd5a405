-- CreateEnum
CREATE TYPE "Environment" AS ENUM ('production', 'test');

-- CreateEnum
CREATE TYPE "UserType" AS ENUM ('HUMAN', 'SYSTEM');

-- CreateEnum
CREATE TYPE "AuthScope" AS ENUM ('INDIVIDUAL', 'SHARED', 'ORGANIZATION');

-- CreateEnum
CREATE TYPE "ConnectionStatus" AS ENUM ('ACTIVE', 'ERROR');

-- CreateTable
CREATE TABLE "custom_connectors" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "auth_type" TEXT NOT NULL,
    "secret_sealed" TEXT,
    "server_name" TEXT,
    "server_version" TEXT,
    "protocol_version" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "tools_refreshed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "custom_connectors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "custom_connector_tools" (
    "id" UUID NOT NULL,
    "connector_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "input_schema" JSONB NOT NULL,
    "output_schema" JSONB,
    "annotations" JSONB,
    "definition_hash" TEXT NOT NULL,

    CONSTRAINT "custom_connector_tools_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "application_credentials" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "connector_slug" TEXT NOT NULL,
    "external_id" TEXT,
    "external_key" TEXT NOT NULL DEFAULT '',
    "client_id" TEXT NOT NULL,
    "client_secret_sealed" TEXT,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "application_credentials_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "registered_users" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "origin_user_id" TEXT NOT NULL,
    "origin_user_name" TEXT NOT NULL,
    "user_type" "UserType" NOT NULL DEFAULT 'HUMAN',
    "origin_company_id" TEXT NOT NULL,
    "origin_company_name" TEXT NOT NULL,
    "custom_groupings" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "registered_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "connections" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "connector_slug" TEXT NOT NULL,
    "auth_scope" "AuthScope" NOT NULL,
    "registered_user_id" UUID,
    "company_id" TEXT,
    "subject_key" TEXT NOT NULL,
    "auth_type" TEXT NOT NULL,
    "credential_sealed" TEXT NOT NULL,
    "access_token_expires_at" TIMESTAMPTZ(3),
    "application_credential_id" UUID,
    "status" "ConnectionStatus" NOT NULL DEFAULT 'ACTIVE',
    "status_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "last_refreshed_at" TIMESTAMPTZ(3),

    CONSTRAINT "connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "link_tokens" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "token_hash" TEXT NOT NULL,
    "registered_user_id" UUID NOT NULL,
    "connector_slug" TEXT NOT NULL,
    "auth_scope" "AuthScope" NOT NULL DEFAULT 'INDIVIDUAL',
    "application_credential_id" UUID,
    "callback_url" TEXT,
    "state" TEXT,
    "oauth_state" TEXT,
    "pkce_verifier_sealed" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "link_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tool_packs" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tool_packs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tool_pack_connectors" (
    "id" UUID NOT NULL,
    "tool_pack_id" UUID NOT NULL,
    "connector_id" UUID NOT NULL,
    "connector_slug" TEXT NOT NULL,
    "is_custom" BOOLEAN NOT NULL,
    "auth_scope" "AuthScope" NOT NULL,
    "tool_names" TEXT[],
    "position" INTEGER NOT NULL,

    CONSTRAINT "tool_pack_connectors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_outbox" (
    "id" UUID NOT NULL,
    "queue" TEXT NOT NULL,
    "job_name" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "custom_connectors_organization_id_environment_slug_key" ON "custom_connectors"("organization_id", "environment", "slug");

-- CreateIndex
CREATE UNIQUE INDEX "custom_connectors_organization_id_environment_url_key" ON "custom_connectors"("organization_id", "environment", "url");

-- CreateIndex
CREATE UNIQUE INDEX "custom_connector_tools_connector_id_name_key" ON "custom_connector_tools"("connector_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "application_credentials_organization_id_environment_connect_key" ON "application_credentials"("organization_id", "environment", "connector_slug", "external_key");

-- CreateIndex
CREATE INDEX "registered_users_organization_id_environment_created_at_idx" ON "registered_users"("organization_id", "environment", "created_at");

-- CreateIndex
CREATE INDEX "registered_users_organization_id_environment_origin_company_idx" ON "registered_users"("organization_id", "environment", "origin_company_id");

-- CreateIndex
CREATE UNIQUE INDEX "registered_users_organization_id_environment_origin_user_id_key" ON "registered_users"("organization_id", "environment", "origin_user_id");

-- CreateIndex
CREATE INDEX "connections_organization_id_environment_created_at_idx" ON "connections"("organization_id", "environment", "created_at");

-- CreateIndex
CREATE INDEX "connections_organization_id_environment_registered_user_id_idx" ON "connections"("organization_id", "environment", "registered_user_id");

-- CreateIndex
CREATE INDEX "connections_application_credential_id_idx" ON "connections"("application_credential_id");

-- CreateIndex
CREATE UNIQUE INDEX "connections_organization_id_environment_connector_slug_auth_key" ON "connections"("organization_id", "environment", "connector_slug", "auth_scope", "subject_key");

-- CreateIndex
CREATE UNIQUE INDEX "link_tokens_token_hash_key" ON "link_tokens"("token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "link_tokens_oauth_state_key" ON "link_tokens"("oauth_state");

-- CreateIndex
CREATE INDEX "link_tokens_organization_id_environment_registered_user_id_idx" ON "link_tokens"("organization_id", "environment", "registered_user_id");

-- CreateIndex
CREATE INDEX "tool_packs_organization_id_environment_created_at_idx" ON "tool_packs"("organization_id", "environment", "created_at");

-- CreateIndex
CREATE INDEX "tool_pack_connectors_connector_id_idx" ON "tool_pack_connectors"("connector_id");

-- CreateIndex
CREATE UNIQUE INDEX "tool_pack_connectors_tool_pack_id_connector_id_key" ON "tool_pack_connectors"("tool_pack_id", "connector_id");

-- CreateIndex
CREATE INDEX "event_outbox_next_attempt_at_idx" ON "event_outbox"("next_attempt_at");

-- AddForeignKey
ALTER TABLE "custom_connector_tools" ADD CONSTRAINT "custom_connector_tools_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "custom_connectors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_pack_connectors" ADD CONSTRAINT "tool_pack_connectors_tool_pack_id_fkey" FOREIGN KEY ("tool_pack_id") REFERENCES "tool_packs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
